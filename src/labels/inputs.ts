import { LABEL_INPUT_NAMES } from '../inputs/names.js'
import type { InputProblem } from '../inputs/problems.js'
import { MAX_LABELS_PER_ISSUE } from '../shared/limits.js'
import { hasControlCharacters, mixedScripts } from '../shared/untrusted.js'
import { codePoints, splitList, splitNames } from '../shared/text.js'
import { parsePaths, type PathFilter } from './paths.js'

export { LABEL_INPUT_NAMES }

export type LabelInputName = (typeof LABEL_INPUT_NAMES)[number]
export type LabelRawInputs = Partial<Record<LabelInputName, string>>

export const MAX_LABEL_DESCRIPTION = 100

export interface LabelInputs {
  /** to add, as the user spelled them */
  labels: string[]
  removeLabels: string[]
  /** 6 lower-case hex digits, no `#` */
  color?: string
  /** at most 100 characters */
  description?: string
  pullRequests: 'auto' | 'none' | number[]
  /** base ref or sha of the range for `pull-requests: auto` */
  since?: string
  /**
   * `since: previous-deployment`: the range starts at the previous successful deployment of the
   * environment (`environment`, filled in by the step's parser, which sees the records' inputs)
   */
  previousDeployment?: { environment?: string }
  /** input `paths`: with `auto`, only pull requests that changed a file it takes in count */
  paths?: PathFilter
  labelLinkedIssues: boolean
  /** what the names look like that is allowed but may not be meant (a name mixing scripts) */
  warnings?: string[]
}

/**
 * The form two label names are compared in: Unicode NFC (`café` typed as `e` and a combining
 * accent is the same name as with `é`), then lower case, as the service compares them.
 */
export function labelKey(name: string): string {
  return name.normalize('NFC').toLowerCase()
}

/**
 * Reads the label inputs. `value` is undefined when neither `labels` nor `remove-labels` is
 * given (nothing to do) or when there are problems; each problem names its input.
 */
export function parseLabelInputs(raw: LabelRawInputs): {
  value?: LabelInputs
  problems: InputProblem[]
} {
  const problems: InputProblem[] = []
  const problem = (input: LabelInputName, message: string) => problems.push({ input, message })
  const text = (name: LabelInputName) => (raw[name] ?? '').trim()

  const warnings: string[] = []
  const labels = labelList(text('labels'), 'labels', problem, warnings)
  const removeLabels = labelList(text('remove-labels'), 'remove-labels', problem, warnings)
  const wanted = labels.length > 0 || removeLabels.length > 0

  const lowerAdds = new Set(labels.map(labelKey))
  for (const name of removeLabels) {
    if (lowerAdds.has(labelKey(name)))
      problem('remove-labels', `\`${name}\` is also in \`labels\`: add it or remove it, not both`)
  }

  let color: string | undefined
  const rawColor = text('label-color')
  if (rawColor !== '') {
    const hex = rawColor.replace(/^#/, '')
    if (/^[0-9a-fA-F]{6}$/.test(hex)) color = hex.toLowerCase()
    else problem('label-color', `\`${rawColor}\` is not a color of 6 hex digits like 0e8a16`)
  }

  let description: string | undefined
  const rawDescription = text('label-description')
  if (rawDescription !== '') {
    if (codePoints(rawDescription) > MAX_LABEL_DESCRIPTION)
      problem(
        'label-description',
        `is ${codePoints(rawDescription)} characters long; at most ${MAX_LABEL_DESCRIPTION} are allowed`
      )
    else if (hasControlCharacters(rawDescription))
      problem('label-description', 'contains control characters')
    else description = rawDescription
  }
  if (labels.length === 0) {
    for (const name of ['label-color', 'label-description'] as const) {
      if (text(name) !== '')
        problem(name, 'applies to the labels in `labels`, which is empty: give `labels` too')
    }
  }

  const pullRequests = parsePullRequests(text('pull-requests'), problem)

  let since: string | undefined
  const rawSince = text('since')
  const previousDeployment = isPreviousDeploymentWord(rawSince)
  if (rawSince !== '') {
    if (previousDeployment) {
      // the word, not a ref: a branch of that name is `refs/heads/previous-deployment`
    } else if (!isSafeRef(rawSince))
      problem('since', `\`${rawSince}\` is not a ref or sha (like v1.2.0 or a commit sha)`)
    else since = rawSince
    if (pullRequests !== undefined && pullRequests !== 'auto')
      problem('since', 'only applies to `pull-requests: auto`')
  }

  const rawPaths = text('paths')
  const paths = parsePaths(rawPaths)
  paths.problems.forEach(message => problem('paths', message))
  if (rawPaths !== '' && pullRequests !== undefined && pullRequests !== 'auto')
    problem('paths', 'only applies to `pull-requests: auto`')

  let labelLinkedIssues = false
  const rawLinked = text('label-linked-issues')
  if (/^true$/i.test(rawLinked)) labelLinkedIssues = true
  else if (rawLinked !== '' && !/^false$/i.test(rawLinked))
    problem('label-linked-issues', `\`${rawLinked}\` is not true or false`)

  if (!wanted) {
    // Inputs that only make sense with labels to add or remove; defaults are fine on their own.
    if (Array.isArray(pullRequests))
      problem(
        'pull-requests',
        'lists numbers but there is nothing to do: give `labels` or `remove-labels`'
      )
    if (rawSince !== '') problem('since', 'has nothing to do without `labels` or `remove-labels`')
    if (rawPaths !== '') problem('paths', 'has nothing to do without `labels` or `remove-labels`')
    if (labelLinkedIssues)
      problem('label-linked-issues', 'has nothing to do without `labels` or `remove-labels`')
  }

  if (!wanted || problems.length > 0 || pullRequests === undefined) return { problems }
  return {
    value: {
      labels,
      removeLabels,
      ...(color !== undefined ? { color } : {}),
      ...(description !== undefined ? { description } : {}),
      pullRequests,
      ...(since !== undefined ? { since } : {}),
      ...(previousDeployment ? { previousDeployment: {} } : {}),
      ...(paths.filter !== undefined ? { paths: paths.filter } : {}),
      labelLinkedIssues,
      ...(warnings.length > 0 ? { warnings } : {})
    },
    problems
  }
}

/**
 * Names may hold commas: several lines are one name per line (see `splitNames`). Each is taken
 * in Unicode NFC, and duplicates that differ only in case or in normal form are one label. At
 * most MAX_LABELS_PER_ISSUE (an issue holds no more); a name that mixes look-alike scripts
 * (`deployed` with a Cyrillic `е`) is a warning: it reads as another label, but is one of its own.
 */
function labelList(
  value: string,
  input: LabelInputName,
  problem: (input: LabelInputName, message: string) => void,
  warnings: string[]
): string[] {
  const seen = new Set<string>()
  const names: string[] = []
  for (const given of splitNames(value)) {
    if (hasControlCharacters(given)) {
      problem(input, `\`${JSON.stringify(given)}\` contains control characters`)
      continue
    }
    const name = given.normalize('NFC')
    const key = labelKey(name)
    if (seen.has(key)) continue
    seen.add(key)
    names.push(name)
  }
  if (names.length > MAX_LABELS_PER_ISSUE) {
    problem(
      input,
      `has ${names.length} names; an issue holds at most ${MAX_LABELS_PER_ISSUE} labels: give fewer`
    )
    return names
  }
  for (const name of names) {
    const mixed = mixedScripts(name)
    if (mixed !== undefined)
      warnings.push(
        `\`${input}\`: \`${name}\` mixes ${mixed} letters, so it reads as another name: type it in one script if that is not meant`
      )
  }
  return names
}

function parsePullRequests(
  value: string,
  problem: (input: LabelInputName, message: string) => void
): 'auto' | 'none' | number[] | undefined {
  if (value === '' || /^auto$/i.test(value)) return 'auto'
  if (/^none$/i.test(value)) return 'none'
  const numbers: number[] = []
  let bad = false
  for (const item of splitList(value)) {
    const match = /^#?(\d{1,10})$/.exec(item)
    const n = match ? Number(match[1]) : NaN
    if (!Number.isSafeInteger(n) || n < 1 || n > 2 ** 31 - 1) {
      problem(
        'pull-requests',
        `\`${item}\` is not an issue or pull request number; use \`auto\`, \`none\` or numbers like 12, 14`
      )
      bad = true
    } else if (!numbers.includes(n)) numbers.push(n)
  }
  if (bad) return undefined
  return numbers
}

/**
 * The word of `since` that starts the range at the environment's previous successful deployment,
 * in any case. A ref can never be it: a branch or tag named so is given as
 * `refs/heads/previous-deployment` or `refs/tags/previous-deployment`.
 */
export const PREVIOUS_DEPLOYMENT = 'previous-deployment'

export function isPreviousDeploymentWord(value: string): boolean {
  return value.trim().toLowerCase() === PREVIOUS_DEPLOYMENT
}

/**
 * A value that git and the compare endpoint can only read as a revision: no leading `-` (which
 * git would take for an option), no white space, no range or revision syntax.
 */
export function isSafeRef(value: string): boolean {
  if (value.length > 255 || value.startsWith('-') || value.includes('..')) return false
  if (hasControlCharacters(value) || /[\s~^:?*[\\]/.test(value) || value.includes('@{'))
    return false
  return !value.endsWith('/') && !value.endsWith('.') && !value.startsWith('/')
}
