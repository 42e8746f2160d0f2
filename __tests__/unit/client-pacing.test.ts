// ServiceClient under GitHub's documented limits, on the fake clock (nothing sleeps): writes paced
// inside 500 an hour, the estimate told up front, progress while it runs, the primary quota waited
// out before it refuses, and the time budget ending a wait that would not fit, in true words.
import { setup } from '../../__fixtures__/service-client.js'
import { OutOfTime } from '../../src/client/waits.js'

const ok = { status: 201, body: {} }
const HOUR = 3_600_000

async function writes(client: ReturnType<typeof setup>['client'], n: number) {
  for (let i = 0; i < n; i++) await client.request('POST', '/w', { body: {} })
}

describe('pacing inside the content-creation limits', () => {
  test('past 500 writes in an hour, the next waits for the first to leave the window: none is refused', async () => {
    const { client, on, seen, clock, log } = setup()
    on('POST', '/w', ...Array.from({ length: 502 }, () => ok))
    const start = clock.now()
    await writes(client, 502)
    expect(seen).toHaveLength(502)
    // 1 s apart until the 500th; the 501st an hour (and the margin) after the first.
    expect(seen[499]?.at).toBe(start + 499_000)
    expect(seen[500]?.at).toBe(start + HOUR + 1000)
    expect(seen[501]?.at).toBe(start + HOUR + 2000)
    expect(log.text()).toMatch(
      /POST \/w: GitHub's 500 content-creating requests an hour are reached by this run's writes; the next may go at 13:01 UTC; held back in 3102 s, resuming at 13:00:01 UTC/
    )
  })

  test('a write a rate limit refused created nothing: it takes no place in the window', async () => {
    const { client, on, seen, clock } = setup()
    const refused = {
      status: 403,
      headers: { 'retry-after': '1' },
      body: { message: 'You have exceeded a secondary rate limit.' }
    }
    on('POST', '/w', ok, refused, ...Array.from({ length: 499 }, () => ok))
    await writes(client, 500)
    // 501 attempts, 500 writes made: the 500th goes at once, not an hour later.
    expect(seen).toHaveLength(501)
    expect(Math.max(...clock.sleeps)).toBeLessThanOrEqual(1000)
  })

  test('under 500 writes nothing is held back beyond the 1 s gap', async () => {
    const { client, on, clock } = setup()
    on('POST', '/w', ...Array.from({ length: 300 }, () => ok))
    await writes(client, 300)
    expect(Math.max(...clock.sleeps)).toBeLessThanOrEqual(1000)
  })

  test('a wait for the window past the time budget ends the call before it is sent, saying when it may go', async () => {
    const { client, on, seen } = setup({ timeBudgetMinutes: 30 })
    on('POST', '/w', ...Array.from({ length: 501 }, () => ok))
    await writes(client, 500)
    const error = (await client.request('POST', '/w', { body: {} }).catch(e => e)) as OutOfTime
    expect(seen).toHaveLength(500)
    expect(error).toBeInstanceOf(OutOfTime)
    expect([error.refused, error.fatal, error.status]).toEqual([false, true, 0])
    expect(error.message).toBe(
      "POST /w not sent: GitHub's 500 content-creating requests an hour are reached by this run's writes; " +
        "the next may go at 13:01 UTC; waiting 52 min more would pass the step's time budget " +
        '(`time-budget`: 30 minutes, ending at 12:30 UTC). Run the step again after 13:01 UTC.'
    )
  })
})

describe('the estimate up front', () => {
  test("a plan past an hour's limits: one line with the counts, the limit that binds and the expected end", () => {
    const { client, log } = setup()
    client.plan({ writes: 2000, reads: 2000 }, 'Labels')
    // 500 an hour: writes 1-500, 501-1000, 1001-1500 from each hour on, then 499 s more.
    expect(log.lines.map(l => l.message)).toEqual([
      "Labels: 2000 writes and 2000 reads to send; GitHub's 500 content-creating requests an hour sets the pace: " +
        "about 3 h 8 min, expected to end about 15:08 UTC (within the step's time budget of 330 minutes)"
    ])
  })

  test('a plan past the budget says so; one inside an hour says nothing', () => {
    const long = setup({ timeBudgetMinutes: 60 })
    long.client.plan({ writes: 600, reads: 0 }, 'Labels')
    expect(long.log.text()).toMatch(
      /about 1 h 2 min, expected to end about 13:01 UTC \(past the step's time budget of 60 minutes\)/
    )
    const short = setup()
    short.client.plan({ writes: 400, reads: 400 }, 'Labels')
    expect(short.log.lines).toEqual([])
  })

  test("when the token's requests an hour bind (a workflow token's 1,000), the line names them", async () => {
    const { client, on, clock, log } = setup()
    const reset = String(Math.floor(clock.now() / 1000) + 3600)
    const quota = {
      'x-ratelimit-limit': '1000',
      'x-ratelimit-remaining': '500',
      'x-ratelimit-reset': reset
    }
    on('GET', '/r', { status: 200, body: {}, headers: quota })
    await client.request('GET', '/r')
    client.plan({ writes: 300, reads: 900 }, 'Labels')
    expect(log.text()).toMatch(
      /Labels: 300 writes and 900 reads to send; the token's 1000 requests an hour sets the pace: about 1 h, expected to end about 13:00 UTC/
    )
  })
})

test('progress every 5 minutes of a long plan: done, left, expected end', async () => {
  const { client, on, log } = setup()
  on('POST', '/w', ...Array.from({ length: 700 }, () => ok))
  client.plan({ writes: 700, reads: 0 }, 'Labels')
  await writes(client, 700)
  const progress = log.lines.filter(l => l.message.startsWith('Progress:')).map(l => l.message)
  expect(progress[0]).toMatch(
    /^Progress: 30\d of 700 writes done, 39\d left; expected to end about 13:03 UTC$/
  )
  // Every 5 minutes of the clock: the hour's wait is one stretch, so it is told once after it.
  expect(progress.length).toBeGreaterThanOrEqual(2)
  expect(progress.at(-1)).toMatch(
    /^Progress: \d+ of 700 writes done, \d+ left; expected to end about 13:0\d UTC$/
  )
})

test('progress counts what the service accepted: a write refused by a limit is still left', async () => {
  const { client, on, log } = setup()
  const limited = {
    status: 403,
    headers: { 'retry-after': '1' },
    body: { message: 'You have exceeded a secondary rate limit.' }
  }
  // Each write is refused once, then accepted: about two attempts for each write done.
  on('POST', '/w', ...Array.from({ length: 200 }, () => [limited, ok]).flat())
  client.plan({ writes: 700, reads: 0 }, 'Labels')
  await writes(client, 200)
  const progress = log.lines.find(l => l.message.startsWith('Progress:'))?.message ?? ''
  const [done, left] = (/^Progress: (\d+) of 700 writes done, (\d+) left/.exec(progress) ?? [])
    .slice(1)
    .map(Number)
  expect(done).toBeGreaterThan(140)
  expect(done).toBeLessThan(160) // 300 s: about 300 attempts (2 s a write), half of them refused
  expect((done ?? 0) + (left ?? 0)).toBe(700)
})

test("an answer saying the token's quota is used up: the next request waits for the reset instead of being refused", async () => {
  const { client, on, clock, seen, log } = setup()
  const reset = Math.floor(clock.now() / 1000) + 1200
  const used = {
    'x-ratelimit-limit': '1000',
    'x-ratelimit-remaining': '0',
    'x-ratelimit-reset': String(reset)
  }
  on('GET', '/r', { status: 200, body: {}, headers: used }, { status: 200, body: {} })
  await client.request('GET', '/r')
  await client.request('GET', '/r')
  expect(seen.map(s => s.at - seen[0]!.at)).toEqual([0, 1_201_000])
  expect(log.text()).toMatch(
    /the token's 1000 requests an hour are used up; the quota resets at 12:20 UTC \(x-ratelimit-reset\); held back in 1201 s, resuming at 12:20:01 UTC/
  )
})
