/**
 * `npm run demo` ships the seed's three pull requests (emulator/demo-seed.ts): they were merged
 * hours to days before the deploy, as a team's are, so the summary's lead-time line the demo
 * prints shows what the feature is for (`npm run demo -- --check`, run by .ci/run, also refuses a
 * lead time of 0).
 */
import { demoSeed } from '../../emulator/index.js'
import { leadTimeLine, leadTimeOf } from '../../src/labels/lead-time.js'

const SEEDED = Date.UTC(2026, 10, 22, 12, 0, 0)
/** The run starts a moment after the emulator is seeded. */
const DEPLOYED = SEEDED + 7_000

test("the demo's pull requests were merged hours to days before the deploy: its lead-time line is not 0", () => {
  const pulls = demoSeed(SEEDED).pulls?.['acme/web'] ?? []
  const merged = pulls.map(p => ({ number: p.number, mergedAt: p.merged_at ?? '' }))
  expect(merged.map(m => m.number)).toEqual([12, 13, 14])
  const lead = leadTimeOf(merged, DEPLOYED)
  expect(lead.count).toBe(3)
  expect(lead.pull_requests.map(p => p.seconds)).toEqual([
    53 * 3600 + 7,
    26 * 3600 + 7,
    3 * 3600 + 20 * 60 + 7
  ])
  expect(leadTimeLine(lead)).toBe(
    'Shipped 3 pull requests: lead time median 1 d 2 h, 90th percentile 2 d 5 h (longest #12, 2 d 5 h)'
  )
})

test('the seed is made when the demo starts: merges stay hours to days before any run', () => {
  const later = SEEDED + 400 * 86_400_000
  const merged = (demoSeed(later).pulls?.['acme/web'] ?? []).map(p => Date.parse(p.merged_at ?? ''))
  for (const at of merged) {
    expect(later - at).toBeGreaterThanOrEqual(3 * 3_600_000)
    expect(later - at).toBeLessThanOrEqual(3 * 86_400_000)
  }
})
