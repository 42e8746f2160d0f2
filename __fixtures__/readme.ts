import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { documentationFiles } from '../scripts/docs-check.js'

const root = fileURLToPath(new URL('..', import.meta.url))

/**
 * README.md and every page of docs/, one after the other, with every run of white space made one
 * space, so that a figure a test checks can be found however the paragraph is wrapped and
 * whichever page states it.
 */
export function readmeText(): string {
  return documentationFiles(root)
    .map(file => readFileSync(join(root, file), 'utf8'))
    .join('\n')
    .replace(/\s+/g, ' ')
}

/**
 * The numbers the documentation states in the sentence `pattern` matches (each `(\d+)` group),
 * or an empty list when no page has such a sentence. A test compares them with what its own run
 * counted, so a figure on the page cannot drift from the suite that prints it.
 */
export function statedFigures(pattern: RegExp): number[] {
  return pattern.exec(readmeText())?.slice(1).map(Number) ?? []
}
