// Preloaded into a benchmarked process (NODE_OPTIONS=--import): at exit it writes the process's
// own CPU time and peak RSS to BENCH_USAGE_FILE, which the parent cannot read from outside.
import { writeFileSync } from 'node:fs'

const file = process.env.BENCH_USAGE_FILE
if (file) {
  process.on('exit', () => {
    const usage = process.resourceUsage()
    writeFileSync(
      file,
      JSON.stringify({
        cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000,
        maxRssMb: usage.maxRSS / 1024
      })
    )
  })
}
