/**
 * Issue 38: `labels` and `remove-labels` are often filled from event text. At most 100 names each
 * (what one issue holds), refused before any request; names compared in Unicode NFC, so `café`
 * typed two ways is one label; a name that mixes look-alike scripts is a warning.
 */
import { labelInputs, withEmulator, writesOf } from '../../__fixtures__/emulator.js'
import { emulatorClient } from '../../__fixtures__/emulator.js'
import { MemoryLog } from '../../__fixtures__/memory-log.js'
import type { Emulator } from '../../emulator/index.js'
import { runAction } from '../../scripts/run-action.js'
import { applyLabels } from '../../src/labels/apply.js'
import type { DiscoveryContext } from '../../src/labels/discover.js'
import { parseLabelInputs, type LabelInputs } from '../../src/labels/inputs.js'
import { MAX_LABELS_PER_ISSUE } from '../../src/shared/limits.js'

const REPO = 'acme/web'
const NFC = 'caf\u00e9'
const NFD = 'cafe\u0301'
/** `deployed` with a Cyrillic `е` (U+0435) for its second letter. */
const LOOKALIKE = 'd\u0435ployed'

let emulator: Emulator
beforeAll(async () => {
  emulator = await withEmulator()
})
afterAll(async () => emulator.close())
beforeEach(() => emulator.reset())

const names = (count: number, prefix = 'label-') =>
  Array.from({ length: count }, (_, i) => `${prefix}${i}`).join('\n')

describe('how many names', () => {
  test('10,000 labels and 101 remove-labels: one input error naming both, before any request; 100 pass', async () => {
    const run = await runAction(
      labelInputs(emulator, {
        labels: names(10_000),
        'remove-labels': names(101, 'old-'),
        'pull-requests': '12'
      })
    )
    expect(run.code).not.toBe(0)
    expect(run.stdout).toMatch(/::error::The inputs have 2 problems; nothing was sent/)
    expect(run.stdout).toContain(
      'labels: has 10000 names; an issue holds at most 100 labels: give fewer'
    )
    expect(run.stdout).toContain('remove-labels: has 101 names')
    expect(emulator.requests).toEqual([])
    // Exactly 100 of each is taken.
    expect(MAX_LABELS_PER_ISSUE).toBe(100)
    const parsed = parseLabelInputs({ labels: names(100), 'remove-labels': names(100, 'old-') })
    expect(parsed.problems).toEqual([])
    expect(parsed.value?.labels).toHaveLength(100)
  })
})

describe('names compared in Unicode NFC', () => {
  test('`café` typed precomposed and with a combining accent is one label, sent precomposed', () => {
    expect(NFC).not.toBe(NFD)
    const parsed = parseLabelInputs({ labels: `${NFD}\n${NFC}\nCAFE\u0301` })
    expect(parsed.problems).toEqual([])
    expect(parsed.value?.labels).toEqual([NFC])
    const both = parseLabelInputs({ labels: NFC, 'remove-labels': NFD })
    expect(both.problems).toEqual([
      { input: 'remove-labels', message: expect.stringContaining('is also in `labels`') }
    ])
  })

  test('an issue carrying `café` with a combining accent already has the label: no write', async () => {
    emulator.seed({ pulls: { [REPO]: [{ number: 12, labels: [NFD] }] } })
    const log = new MemoryLog()
    const client = emulatorClient(emulator, log)
    try {
      const inputs = parseLabelInputs({ labels: NFC, 'pull-requests': '12' }).value as LabelInputs
      const result = await applyLabels(client, {
        owner: 'acme',
        repo: 'web',
        inputs,
        discovery: {} as DiscoveryContext,
        dryRun: false,
        log
      })
      expect(result.failures).toEqual([])
      expect(result.labeled).toEqual([{ number: 12, added: [], removed: [] }])
      expect(writesOf(emulator.requests)).toEqual([])
    } finally {
      await client.close()
    }
  })
})

describe('names that mix look-alike scripts', () => {
  test('`deployed` with a Cyrillic `е` is a warning naming the letter, in the log of the run; one script is none', async () => {
    const parsed = parseLabelInputs({ labels: `${LOOKALIKE}, deployed:本番, café` })
    expect(parsed.problems).toEqual([])
    expect(parsed.value?.warnings).toEqual([
      `\`labels\`: \`${LOOKALIKE}\` mixes Latin and Cyrillic (\u0435 U+0435) letters, so it ` +
        'reads as another name: type it in one script if that is not meant'
    ])

    const run = await runAction(
      labelInputs(emulator, { labels: LOOKALIKE, 'pull-requests': 'none' })
    )
    expect(run.code).toBe(0)
    expect(run.stdout).toContain(`::warning::\`labels\`: \`${LOOKALIKE}\` mixes Latin and Cyrillic`)
    // One script, or scripts that do not look alike, is no warning.
    for (const labels of ['deployed', 'развёрнуто', 'deployed:本番', 'ελληνικά', `${NFC}, naïve`])
      expect(parseLabelInputs({ labels }).value?.warnings).toBeUndefined()
  })
})
