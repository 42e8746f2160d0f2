import type * as z from 'zod/mini'
import type { InputName, RawInputs } from './names.js'

export interface InputProblem {
  input: string
  message: string
}

/** A feature's parsed inputs: `value` when they ask for its work and are sound. */
export interface Parsed<T> {
  value?: T
  problems: InputProblem[]
}

/** Bad input: every problem at once, each naming its input. */
export class InputError extends Error {
  constructor(readonly problems: InputProblem[]) {
    super(
      `The inputs have ${problems.length === 1 ? 'a problem' : `${problems.length} problems`}; ` +
        'nothing was sent:\n' +
        problems.map(p => `  - ${p.input}: ${p.message}`).join('\n')
    )
    this.name = 'InputError'
  }
}

/** Reads raw inputs through schemas and collects what is wrong with them, naming each input. */
export class Collector {
  readonly problems: InputProblem[] = []

  constructor(private readonly raw: RawInputs) {}

  given(name: InputName): boolean {
    return (this.raw[name] ?? '').trim() !== ''
  }

  text(name: InputName): string {
    return (this.raw[name] ?? '').trim()
  }

  failed(name: string): boolean {
    return this.problems.some(p => p.input === name)
  }

  /** The parsed value, undefined when empty (and no fallback) or bad; a bad one is recorded. */
  take<T>(name: InputName, schema: z.ZodMiniType<T, string>, fallback?: string): T | undefined {
    const value = this.text(name) || (fallback ?? '').trim()
    if (value === '') return undefined
    const result = schema.safeParse(value)
    if (result.success) return result.data
    const messages = [...new Set(result.error.issues.map(issue => issue.message))]
    for (const message of messages) this.problem(name, message)
    return undefined
  }

  problem(input: string, message: string): void {
    this.problems.push({ input, message })
  }

  /** `message` for each of `inputs` the user gave. */
  refuseGiven(inputs: readonly InputName[], message: string): void {
    for (const input of inputs) if (this.given(input)) this.problem(input, message)
  }
}
