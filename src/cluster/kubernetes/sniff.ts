/**
 * What a file that is not UTF-8 JSON most likely is, from its first bytes, so that the error
 * says how to write the file instead of naming a byte: UTF-16 (what Windows PowerShell 5.1's `>`
 * and `Out-File` write by default), gzip, or YAML (kubectl's `-o yaml`).
 */
import { withoutByteOrderMark } from '../../shared/text.js'
import { looksLikeYaml } from '../../shared/untrusted.js'

/** How to write the file kubernetes-file reads, for messages about a file that is not it. */
export const WRITE_JSON =
  'write it as UTF-8 JSON: `kubectl get pods,replicasets,deployments,daemonsets,statefulsets,jobs,cronjobs -A -o json > cluster.json` ' +
  'in bash, or `... -o json | Out-File -Encoding utf8 cluster.json` in PowerShell'

/** A sentence completing "`kubernetes-file` ...", or undefined when the head looks like JSON. */
export function notJsonHint(head: Buffer): string | undefined {
  if (head.length === 0) return undefined
  const b0 = head[0] as number
  const b1 = head[1]
  if ((b0 === 0xff && b1 === 0xfe) || (b0 === 0xfe && b1 === 0xff)) {
    const order = b0 === 0xff ? 'little-endian' : 'big-endian'
    return `is UTF-16 text (${order}, with a byte-order mark), as Windows PowerShell's \`>\` writes it, not UTF-8: ${WRITE_JSON}`
  }
  if (b0 === 0x1f && b1 === 0x8b)
    return `is gzip-compressed: decompress it first (\`gunzip\`), or ${WRITE_JSON}`
  // ASCII text in UTF-16 has a zero byte beside each character: `{\0` or `\0{`.
  const ascii = (b: number | undefined) => b !== undefined && b >= 0x09 && b < 0x7f
  if (b1 !== undefined && (b0 === 0) !== (b1 === 0) && ascii(b0 === 0 ? b1 : b0)) {
    const order = b1 === 0 ? 'little-endian' : 'big-endian'
    return `is UTF-16 text (${order}, without a byte-order mark), not UTF-8: ${WRITE_JSON}`
  }
  const text = withoutByteOrderMark(head.subarray(0, 256).toString('utf8'))
  const first = text.trimStart()
  const line = first.split(/\r?\n/)[0] ?? ''
  const message = kubectlMessage(line)
  if (message)
    return `starts with a message of kubectl's (${message}), not JSON: ${NO_MESSAGES}; ${WRITE_JSON}`
  if (looksLikeYaml(first))
    return `is YAML, not JSON: print it with \`-o json\`, not \`-o yaml\`; ${WRITE_JSON}`
  return undefined
}

const NO_MESSAGES = "send only kubectl's output to the file, not its messages (no `2>&1`)"

/**
 * What kubectl writes to stderr, in the file by `2>&1` (or `*>` in PowerShell), as a message
 * names it (`` `Warning: ...` ``), or undefined when `line` is not one.
 */
export function kubectlMessage(line: string): string | undefined {
  if (!/^(Warning: |error: |Error from server|Unable to connect|[EWI]\d{4} \d)/.test(line))
    return undefined
  return `\`${line.split(/[\s:]/)[0]}: ...\``
}

/** A sentence completing "`kubernetes-file` ..." for text after the list that is kubectl's. */
export function messageAfterHint(text: string, at: number): string | undefined {
  const message = kubectlMessage(text.split(/\r?\n/)[0] ?? '')
  return message
    ? `has a message of kubectl's (${message}) at byte ${at}, after the JSON: ${NO_MESSAGES}; ${WRITE_JSON}`
    : undefined
}
