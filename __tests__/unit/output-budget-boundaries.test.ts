/**
 * The limits of src/step/output-budget.ts at, below and above each boundary: an output or a summary
 * exactly at its budget stays whole, one unit more is cut; an item that exactly fills what is left
 * is kept; the first item pays no separator; the never-cut values and the smallest outputs are
 * served first, so the larger ones share what is really left.
 */
import { fitOutputs, fitSummary, jsonArray, sizeOf, text } from '../../src/step/output-budget.js'

/** ["aa","bb","cc"]: each item 4 characters (8 bytes as UTF-16), `[`, `]` and `,` 2 bytes each. */
const three = jsonArray(['aa', 'bb', 'cc'])
const cutAt = (budget: number) => three.cut?.(budget)

describe('a JSON array cut to a budget', () => {
  test('the first item pays no separator: [ + item + ] exactly at the budget keeps it, one byte less keeps none', () => {
    expect(cutAt(2 + 8 + 2)).toEqual({ value: '["aa"]', leftOut: 2 })
    expect(cutAt(2 + 8 + 2 - 1)).toEqual({ value: '[]', leftOut: 3 })
  })

  test('an item that fills exactly what is left is kept; one byte less, it is left out', () => {
    expect(cutAt(2 + 8 + 2 + 8 + 2)).toEqual({ value: '["aa","bb"]', leftOut: 1 })
    expect(cutAt(2 + 8 + 2 + 8 + 2 - 1)).toEqual({ value: '["aa"]', leftOut: 2 })
    expect(cutAt(sizeOf(three.full))).toEqual({ value: three.full, leftOut: 0 })
  })
})

describe('outputs at their budget', () => {
  // The output `a`: its name (2 bytes) and ["aa","bb","cc"] (32 bytes).
  const whole = sizeOf('a') + sizeOf(three.full)

  test('exactly at the budget: whole, nothing counted as cut', () => {
    expect(whole).toBe(34)
    expect(fitOutputs({ a: three }, whole, 0)).toEqual({
      outputs: { a: three.full },
      cut: {},
      total: {}
    })
  })

  test('exactly at the budget with text UTF-8 makes larger (€) beside ASCII: whole, not cut item by item', () => {
    // Counted whole, the larger of UTF-16 and UTF-8 is taken once; item by item, each item's
    // larger is added up, which is more: an output that fits whole must not go to the cut.
    const mixed = jsonArray(['€€€€', 'aaaa'])
    const size = sizeOf('m') + sizeOf(mixed.full)
    expect(fitOutputs({ m: mixed }, size, 0)).toEqual({
      outputs: { m: mixed.full },
      cut: {},
      total: {}
    })
    expect(fitOutputs({ m: mixed }, size + 10, 0).outputs['m']).toBe(mixed.full)
  })

  test('one byte over: cut after the last item that fits, the rest counted', () => {
    expect(fitOutputs({ a: three }, whole - 1, 0)).toEqual({
      outputs: { a: '["aa","bb"]' },
      cut: { a: 1 },
      total: { a: 3 }
    })
  })

  test('the reserve is kept out of the budget', () => {
    expect(fitOutputs({ a: three }, whole + 10, 10).outputs['a']).toBe(three.full)
    expect(fitOutputs({ a: three }, whole + 10, 11).outputs['a']).toBe('["aa","bb"]')
  })

  test('a never-cut value is served first, whatever its size: the lists share only what it leaves', () => {
    const status = text('x'.repeat(400)) // 800 bytes, more than either list
    const list = (n: number) => jsonArray(Array.from({ length: n }, (_, i) => i))
    const specs = { first: list(600), second: list(600), status }
    const budget = 2_000
    const { outputs } = fitOutputs(specs, budget, 0)
    const total = Object.entries(outputs).reduce((n, [k, v]) => n + sizeOf(k) + sizeOf(v), 0)
    expect(outputs['status']).toBe(status.full)
    expect(total).toBeLessThanOrEqual(budget)
  })

  test('a never-cut value larger than a list is served before it, so the list is cut and the sum fits', () => {
    const status = text('x'.repeat(400)) // 812 bytes with its name
    const list = jsonArray(Array.from({ length: 100 }, (_, i) => i)) // 590 bytes with its name
    const { outputs, cut } = fitOutputs({ list, status }, 1_000, 0)
    const total = Object.entries(outputs).reduce((n, [k, v]) => n + sizeOf(k) + sizeOf(v), 0)
    expect(outputs['status']).toBe(status.full)
    expect(total).toBeLessThanOrEqual(1_000)
    expect(cut['list']).toBeGreaterThan(0)
  })

  test('the smallest output is served first, so a large one given first still gets what the small one leaves', () => {
    const large = jsonArray(Array.from({ length: 2_000 }, (_, i) => i))
    const small = jsonArray([1, 2, 3])
    const budget = 4_000
    const { outputs } = fitOutputs({ large, small }, budget, 0)
    expect(outputs['small']).toBe('[1,2,3]')
    const used = sizeOf('large') + sizeOf(outputs['large'] ?? '')
    // Half the budget would be an equal split; the large one gets all but the small one's part.
    expect(used).toBeGreaterThan(budget - sizeOf('small') - sizeOf('[1,2,3]') - 20)
  })
})

describe('the job summary at its budget', () => {
  test('exactly at the budget: as it is; one byte over: cut', () => {
    const markdown = 'a'.repeat(100)
    expect(fitSummary(markdown, 100)).toBe(markdown)
    expect(fitSummary(markdown, 99)).not.toBe(markdown)
  })

  test('each line costs its bytes and its newline: a line that fills the budget exactly is kept', () => {
    const lines = Array.from({ length: 100 }, () => 'a'.repeat(9)) // 10 bytes with the newline
    const note = (left: number) =>
      `\n\n_The summary was cut here to stay within GitHub's 1 MiB limit for a job summary: ` +
      `${left} more lines are left out; the log has everything._\n`
    // The room is counted with the longest note (100 lines left out): 50 lines fit exactly.
    const budget = Buffer.byteLength(note(100)) + 50 * 10
    expect(fitSummary(lines.join('\n'), budget)).toBe(lines.slice(0, 50).join('\n') + note(50))
    expect(fitSummary(lines.join('\n'), budget - 1)).toBe(lines.slice(0, 49).join('\n') + note(51))
  })
})
