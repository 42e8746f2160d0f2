// Loaded with `node --import` into a process under test: writes its peak resident memory (kB,
// process.resourceUsage().maxRSS) to $MAX_RSS_FILE when it exits.
import { writeFileSync } from 'node:fs'

process.on('exit', () => {
  const file = process.env['MAX_RSS_FILE']
  if (file) writeFileSync(file, String(process.resourceUsage().maxRSS))
})
