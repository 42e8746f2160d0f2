/**
 * Where a range starts without `since`. When the ref is a version tag, the previous release is
 * counted as release tools count it (see versions.ts): a final release from the highest final
 * release below it of its form, its release candidates skipped; a pre-release from the highest
 * tag below it. On a release branch, the previous release, not a development tag nearer in the
 * history. The range
 * is read from it as the compare endpoint reads `base...head`: from the merge base. Else, or
 * when no tag of its form is below it, the nearest tag before the head in the history
 * (`git describe`), as before.
 */
import { isSafeRef } from './inputs.js'
import { short } from './range-pulls.js'
import { FIX_HISTORY, type RangeReader } from './read-range.js'
import { formOf, isFinal, parseVersion, previousRelease as byVersion } from './versions.js'
import { namedAndMore } from '../runner/markdown.js'

export interface PreviousRelease {
  /** the ref the range starts from; undefined when there is none (a warning says why) */
  base?: string
  /** which tag was taken and why, for the log */
  notes: string[]
  warnings: string[]
  /** tags of the form that name no version and sort between the two releases */
  passedOver?: string[]
}

export async function previousRelease(
  range: RangeReader,
  /** the event, for the start of each note and warning */
  what: string,
  head: string,
  /** the tag the ref names, if it names one */
  tag: string | undefined
): Promise<PreviousRelease> {
  const version = tag === undefined ? undefined : parseVersion(tag)
  if (version) {
    const tags = await range.tagNames()
    if ('warning' in tags) return { notes: [], warnings: [`${what}: ${tags.warning}`] }
    const previous = byVersion(version, tags.names.filter(isSafeRef))
    if (previous !== undefined && previous.name === undefined) {
      // A first final release after its pre-releases: nothing release tools would count from.
      const warning =
        `${what}: found no pull requests, because ${tag} is the first final release of the form ` +
        `${formOf(version)} (below it only pre-releases, skipped: ${tenAndMore(previous.skipped)}): ` +
        'set `since` to the ref or sha to start from (the first commit, for everything it ships)'
      return { notes: [], warnings: [warning] }
    }
    if (previous?.name !== undefined) {
      const kind = isFinal(version) ? 'final release' : 'tag'
      const notes = [
        `${what}: previous release ${previous.name} by version order (the highest ${kind} of ` +
          `the form ${formOf(version)} below ${tag}, of ${tags.names.length} ${tags.how})`
      ]
      if (previous.skipped.length > 0) {
        notes.push(
          `${what}: pre-releases skipped, as a final release counts from the previous final ` +
            `release: ${tenAndMore(previous.skipped)}`
        )
      }
      if (previous.notVersions.length > 0) {
        notes.push(
          `${what}: passed over as no version (two to four numbers after the prefix): ` +
            `${tenAndMore(previous.notVersions)}; set \`since\` to start from one of them`
        )
      }
      return { base: previous.name, notes, warnings: [], passedOver: previous.notVersions }
    }
  }
  const none = version ? `no tag of the form ${formOf(version)} comes below ${tag}` : undefined
  if (!(await range.hasHistory())) {
    const warning =
      `${what}: found no pull requests, because there is no \`since\`, ` +
      `${none ? `${none}, and ` : ''}the checkout has no history to find the previous tag in: ` +
      FIX_HISTORY
    return { notes: [], warnings: [warning] }
  }
  const nearest = await range.previousTag(head)
  if (!nearest || !isSafeRef(nearest)) {
    const warning =
      `${what}: found no pull requests, because ${none ? `${none}, and ` : ''}no tag comes ` +
      `before ${short(head)} in the history: set \`since\` to the ref or sha to start from`
    return { notes: [], warnings: [warning] }
  }
  const note =
    `${what}: previous tag ${nearest}, the nearest before ${short(head)} in the history ` +
    `(${none ?? 'the ref is not a version tag'})`
  return { base: nearest, notes: [note], warnings: [] }
}

/** Up to ten names, then how many more. */
const tenAndMore = (names: string[]): string => namedAndMore(names, 10)
