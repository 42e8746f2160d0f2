/** Newline- or comma-separated, trimmed, empty items and duplicates dropped. */
export function splitList(value: string): string[] {
  return [
    ...new Set(
      value
        .split(/[\n,]/)
        .map(item => item.trim())
        .filter(Boolean)
    )
  ]
}
