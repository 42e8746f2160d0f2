import { FakeClock } from '../../__fixtures__/fake-clock.js'
import { isWrite, WRITE_GAP_MS, WritePacer } from '../../src/client/pacer.js'

test('the first write goes at once', async () => {
  const clock = new FakeClock()
  await new WritePacer(clock).beforeWrite()
  expect(clock.sleeps).toEqual([])
})

test('a write right after another waits the full gap', async () => {
  const clock = new FakeClock()
  const pacer = new WritePacer(clock)
  await pacer.beforeWrite()
  pacer.writeFinished()
  await pacer.beforeWrite()
  expect(clock.sleeps).toEqual([WRITE_GAP_MS])
})

test('only the time left is waited, counted from when the previous write finished', async () => {
  const clock = new FakeClock()
  const pacer = new WritePacer(clock)
  await pacer.beforeWrite()
  clock.advance(300) // the write itself takes 300 ms: the gap starts after it
  pacer.writeFinished()
  clock.advance(650)
  await pacer.beforeWrite()
  expect(clock.sleeps).toEqual([350])
  pacer.writeFinished()
  clock.advance(5000)
  await pacer.beforeWrite()
  expect(clock.sleeps).toEqual([350])
})

test.each([
  ['POST', true],
  ['patch', true],
  ['PUT', true],
  ['DELETE', true],
  ['GET', false],
  ['HEAD', false]
])('%s is a write: %s', (method, expected) => {
  expect(isWrite(method)).toBe(expected)
})

test('a sleep that wakes early is followed by another until the gap is whole', async () => {
  const clock = new FakeClock()
  const early = {
    now: () => clock.now(),
    sleep: async (ms: number) => {
      clock.sleeps.push(ms)
      clock.advance(ms - 0.5)
    }
  }
  const pacer = new WritePacer(early)
  pacer.writeFinished()
  await pacer.beforeWrite()
  expect(clock.sleeps).toEqual([1000, 1])
})
