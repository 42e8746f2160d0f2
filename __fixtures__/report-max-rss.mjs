// Loaded with `node --import` into a process under test: writes its peak resident memory (kB) to
// $MAX_RSS_FILE when it exits. On Linux that is /proc/self/status's VmHWM, the high-water mark of
// this program's own memory: getrusage's maxRSS also keeps the parent's at the fork before exec
// (a jest worker grown to 250 MB made every step "peak" at 250 MB).
import { readFileSync, writeFileSync } from 'node:fs'

function peakKb() {
  try {
    const hwm = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync('/proc/self/status', 'utf8'))
    if (hwm) return Number(hwm[1])
  } catch {
    // not Linux: the process's own figure
  }
  return process.resourceUsage().maxRSS
}

process.on('exit', () => {
  const file = process.env['MAX_RSS_FILE']
  if (file) writeFileSync(file, String(peakKb()))
})
