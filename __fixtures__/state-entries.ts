/**
 * Numbered deployments for the state file's unit tests: `item(n)` is deployment `s<n>` of image
 * `ghcr.io/acme/s<n>`, its digest spelled from `n`.
 */
export const digest = (n: number) => 'sha256:' + n.toString(16).padStart(64, '0')

export const item = (n: number) => ({
  name: `ghcr.io/acme/s${n}`,
  digest: digest(n),
  deployment_name: `s${n}`
})

/** `from`, `from + 1`, … `to`. */
export const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i)
