import {
  formatDuration,
  leadTimeLine,
  leadTimeOf,
  nearestRank,
  NO_LEAD_TIME
} from '../../src/labels/lead-time.js'
import { fittedOutputs } from '../../src/step/outputs.js'
import { OUTPUTS_BUDGET_BYTES } from '../../src/step/output-budget.js'
import { emptyResult } from '../../src/shared/result.js'

const DEPLOYED = Date.UTC(2026, 10, 22, 12, 0, 0)
const HOUR = 3_600
const DAY = 86_400
const mergedBefore = (seconds: number) => new Date(DEPLOYED - seconds * 1000).toISOString()

test('three pull requests merged 1 h, 1 d and 3 d before: median 1 d, p90 and max 3 d', () => {
  const lead = leadTimeOf(
    [
      { number: 12, mergedAt: mergedBefore(DAY) },
      { number: 14, mergedAt: mergedBefore(HOUR) },
      { number: 15, mergedAt: mergedBefore(3 * DAY) }
    ],
    DEPLOYED
  )
  expect(lead).toEqual({
    count: 3,
    median_seconds: 86400,
    p90_seconds: 259200,
    max_seconds: 259200,
    pull_requests: [
      { number: 12, merged_at: mergedBefore(DAY), seconds: DAY },
      { number: 14, merged_at: mergedBefore(HOUR), seconds: HOUR },
      { number: 15, merged_at: mergedBefore(3 * DAY), seconds: 3 * DAY }
    ]
  })
  expect(leadTimeLine(lead)).toBe(
    'Shipped 3 pull requests: lead time median 1 d, 90th percentile 3 d (longest #15, 3 d)'
  )
})

test('nearest rank: the value at rank ceil(p/100 * n), so always one of the values', () => {
  const ten = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
  expect([nearestRank(ten, 50), nearestRank(ten, 90), nearestRank(ten, 100)]).toEqual([5, 9, 10])
  // an even count: the lower middle one, not their mean
  expect(nearestRank([10, 20], 50)).toBe(10)
  expect(nearestRank([7], 50)).toBe(7)
  expect(nearestRank([7], 90)).toBe(7)
  // 11 values: the 90th percentile is the 10th (ceil 9.9)
  expect(nearestRank([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], 90)).toBe(10)
})

test('whole seconds cut down; a merge after the clock counts 0; unreadable dates and repeats left out', () => {
  const lead = leadTimeOf(
    [
      { number: 1, mergedAt: new Date(DEPLOYED - 1999).toISOString() },
      { number: 2, mergedAt: new Date(DEPLOYED + 5000).toISOString() },
      { number: 3, mergedAt: 'yesterday' },
      { number: 1, mergedAt: mergedBefore(DAY) }
    ],
    DEPLOYED
  )
  expect(lead.pull_requests.map(p => [p.number, p.seconds])).toEqual([
    [1, 1],
    [2, 0]
  ])
  expect(leadTimeOf([{ number: 3, mergedAt: 'yesterday' }], DEPLOYED)).toEqual(NO_LEAD_TIME)
})

test('durations read as the two largest units, cut to whole ones', () => {
  expect(formatDuration(2 * DAY + 4 * HOUR + 59 * 60)).toBe('2 d 4 h')
  expect(formatDuration(6 * DAY + HOUR)).toBe('6 d 1 h')
  expect(formatDuration(9 * DAY + 59)).toBe('9 d')
  expect(formatDuration(5 * HOUR + 12 * 60 + 30)).toBe('5 h 12 min')
  expect(formatDuration(40 * 60)).toBe('40 min')
  expect(formatDuration(35)).toBe('35 s')
  expect(formatDuration(0)).toBe('0 s')
})

test('the summary line: none says nothing, one names its pull request, the longest is the first of equals', () => {
  expect(leadTimeLine(undefined)).toBeUndefined()
  expect(leadTimeLine(NO_LEAD_TIME)).toBeUndefined()
  expect(
    leadTimeLine(leadTimeOf([{ number: 7, mergedAt: mergedBefore(3 * HOUR) }], DEPLOYED))
  ).toBe('Shipped 1 pull request: lead time 3 h (#7)')
  const tied = leadTimeOf(
    [
      { number: 4, mergedAt: mergedBefore(2 * DAY) },
      { number: 9, mergedAt: mergedBefore(2 * DAY) }
    ],
    DEPLOYED
  )
  expect(leadTimeLine(tied)).toBe(
    'Shipped 2 pull requests: lead time median 2 d, 90th percentile 2 d (longest #4, 2 d)'
  )
})

test('the output when none was merged is the count 0 with null figures', () => {
  expect(JSON.parse(fittedOutputs(emptyResult(false)).outputs['lead-time'] ?? '')).toEqual({
    count: 0,
    median_seconds: null,
    p90_seconds: null,
    max_seconds: null,
    pull_requests: []
  })
})

test('a huge lead-time output keeps its figures and is cut between pull requests, counted in truncated', () => {
  const N = 30_000
  const result = emptyResult(false)
  result.leadTime = leadTimeOf(
    Array.from({ length: N }, (_, i) => ({ number: i + 1, mergedAt: mergedBefore(i * 60) })),
    DEPLOYED
  )
  const fitted = fittedOutputs(result)
  const value = fitted.outputs['lead-time'] ?? ''
  expect(2 * value.length).toBeLessThanOrEqual(OUTPUTS_BUDGET_BYTES)
  const parsed = JSON.parse(value) as {
    count: number
    max_seconds: number
    pull_requests: unknown[]
  }
  expect(parsed.count).toBe(N)
  expect(parsed.max_seconds).toBe((N - 1) * 60)
  expect(parsed.pull_requests.length).toBeGreaterThan(0)
  expect(parsed.pull_requests.length).toBeLessThan(N)
  expect(JSON.parse(fitted.outputs['truncated'] ?? '')).toEqual({
    'lead-time': N - parsed.pull_requests.length
  })
})
