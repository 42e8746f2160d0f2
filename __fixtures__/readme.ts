import { readFileSync } from 'node:fs'

/**
 * README.md with every run of white space made one space, so that a figure a test checks can be
 * found however the paragraph is wrapped.
 */
export function readmeText(): string {
  return readFileSync(new URL('../README.md', import.meta.url), 'utf8').replace(/\s+/g, ' ')
}

/**
 * The numbers README states in the sentence `pattern` matches (each `(\d+)` group), or an empty
 * list when README has no such sentence. A test compares them with what its own run counted, so
 * a figure on the page cannot drift from the suite that prints it.
 */
export function statedFigures(pattern: RegExp): number[] {
  return pattern.exec(readmeText())?.slice(1).map(Number) ?? []
}
