/**
 * The budget every output shares (src/step/output-budget.ts), over generated outputs: whatever their
 * sizes, all of them together fit, each JSON output stays valid JSON holding the first items,
 * and the count of what was left out is exact.
 */
import fc from 'fast-check'
import { commaList, fitOutputs, fitSummary, jsonArray, text } from '../../src/step/output-budget.js'

fc.configureGlobal({ seed: Number(process.env['FC_SEED'] ?? 20261123) })

/** GitHub counts UTF-16; UTF-8 is larger for some text: the larger of the two, by hand. */
const size = (s: string) => Math.max(2 * s.length, new TextEncoder().encode(s).length)

const item = fc.record({
  id: fc.integer({ min: 1, max: 10 ** 9 }),
  name: fc.string({ maxLength: 300, unit: 'binary', size: 'medium' })
})
let runsThatCut = 0
afterAll(() => {
  // The property is only worth something if many of its runs had to cut.
  expect(runsThatCut).toBeGreaterThan(30)
})

test('all outputs together fit the budget; each is a prefix of its items with the rest counted', () => {
  fc.assert(
    fc.property(
      fc.array(fc.array(item, { maxLength: 200, size: 'max' }), { minLength: 1, maxLength: 4 }),
      fc.array(fc.integer({ min: 1, max: 10 ** 9 }), { maxLength: 3000, size: 'max' }),
      fc.integer({ min: 5_000, max: 60_000 }),
      (arrays, ids, budget) => {
        const specs = {
          ...Object.fromEntries(arrays.map((items, i) => [`list-${i}`, jsonArray(items)])),
          ids: commaList(ids),
          status: text('completed')
        }
        const { outputs, cut } = fitOutputs(specs, budget, 0)
        if (Object.keys(cut).length > 0) runsThatCut++
        const total = Object.entries(outputs).reduce((n, [k, v]) => n + size(k) + size(v), 0)
        expect(total).toBeLessThanOrEqual(budget)
        arrays.forEach((items, i) => {
          const kept = JSON.parse(outputs[`list-${i}`] ?? '') as unknown[]
          expect(kept).toEqual(items.slice(0, kept.length))
          expect(cut[`list-${i}`] ?? 0).toBe(items.length - kept.length)
        })
        const keptIds = outputs['ids'] === '' ? [] : (outputs['ids'] ?? '').split(',').map(Number)
        expect(keptIds).toEqual(ids.slice(0, keptIds.length))
        expect(cut['ids'] ?? 0).toBe(ids.length - keptIds.length)
        expect(outputs['status']).toBe('completed')
      }
    ),
    { numRuns: 100, endOnFailure: true }
  )
})

test('a small output is never cut because a large one is there', () => {
  const big = Array.from({ length: 20_000 }, (_, i) => ({ id: i, name: 'x'.repeat(40) }))
  const small = [{ id: 1, name: 'web' }]
  const { outputs, cut } = fitOutputs({ big: jsonArray(big), small: jsonArray(small) }, 100_000, 0)
  expect(outputs['small']).toBe('[{"id":1,"name":"web"}]')
  expect(Object.keys(cut)).toEqual(['big'])
})

test('a summary over its budget is cut at a line, and says so', () => {
  const lines = Array.from({ length: 5000 }, (_, i) => `- line ${i} ${'é'.repeat(100)}`)
  const cutSummary = fitSummary(lines.join('\n'), 100_000)
  expect(new TextEncoder().encode(cutSummary).length).toBeLessThanOrEqual(100_000)
  const kept = cutSummary.split('\n').filter(l => l.startsWith('- line'))
  expect(kept).toEqual(lines.slice(0, kept.length))
  expect(cutSummary).toContain(`${5000 - kept.length} more lines are left out`)
  expect(fitSummary('short\n', 100_000)).toBe('short\n')
})
