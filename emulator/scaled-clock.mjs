// Loaded with `node --import` (NODE_OPTIONS) before a process that talks to an emulator started
// with `limits: { clockScale }`: puts the process on the emulator's clock. SCALED_CLOCK is
// `SCALE@ORIGIN` (emulator/limits.ts, scaledClockEnv): from the real instant ORIGIN on, Date,
// performance.now and process.hrtime run SCALE times faster, and setTimeout / setInterval delays
// are SCALE times shorter. The process does not know: no hook in the action. Tests, the benchmark
// and a local trial only; a real run never loads it.
const [scaleText, originText] = (process.env['SCALED_CLOCK'] ?? '').split('@')
const scale = Number(scaleText)
const origin = Number(originText)
if (Number.isFinite(scale) && scale > 0 && Number.isFinite(origin)) {
  const RealDate = Date
  const realNow = RealDate.now
  const scaled = () => origin + (realNow() - origin) * scale
  class ScaledDate extends RealDate {
    constructor(...args) {
      if (args.length === 0) super(scaled())
      else super(...args)
    }
    static now() {
      return scaled()
    }
  }
  globalThis.Date = ScaledDate
  const { performance } = globalThis
  const realPerf = performance.now.bind(performance)
  const perfStart = realPerf()
  performance.now = () => perfStart + (realPerf() - perfStart) * scale
  const realHr = process.hrtime.bigint
  const hrStart = realHr()
  const big = BigInt(Math.round(scale * 1000))
  const hrBig = () => hrStart + ((realHr() - hrStart) * big) / 1000n
  const hrtime = prev => {
    const ns = hrBig()
    const now = [Number(ns / 1_000_000_000n), Number(ns % 1_000_000_000n)]
    if (!prev) return now
    let [s, n] = [now[0] - prev[0], now[1] - prev[1]]
    if (n < 0) [s, n] = [s - 1, n + 1e9]
    return [s, n]
  }
  hrtime.bigint = hrBig
  process.hrtime = hrtime
  const shorter =
    real =>
    (fn, ms, ...args) =>
      real(fn, Math.max(0, Number(ms) || 0) / scale, ...args)
  globalThis.setTimeout = shorter(globalThis.setTimeout)
  globalThis.setInterval = shorter(globalThis.setInterval)
}
