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

/** C0 controls and DEL, which are not text a user meant to send; `allowed` lists exceptions. */
export function hasControlCharacters(value: string, allowed = ''): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i)
    if ((code < 0x20 || code === 0x7f) && !allowed.includes(value[i] as string)) return true
  }
  return false
}
