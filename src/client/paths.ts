/**
 * Builds a request path whose interpolated values are each one encoded path segment:
 * `path\`/repos/${owner}/${repo}/labels/${name}\`` with name `a/b` gives `.../labels/a%2Fb`.
 * `.` and `..` are encoded too, so that no value can climb out of its place in the path.
 */
export function path(strings: TemplateStringsArray, ...values: Array<string | number>): string {
  let result = strings[0] ?? ''
  values.forEach((value, i) => {
    result += encodeSegment(String(value)) + (strings[i + 1] ?? '')
  })
  return result
}

export function encodeSegment(value: string): string {
  if (value === '') throw new Error('a path segment cannot be empty')
  // encodeURIComponent leaves dots alone, and a segment of only dots (`.`, `..`) would be read as
  // a step up the path by servers and URL parsers.
  if (/^\.+$/.test(value)) return value.replace(/\./g, '%2E')
  return encodeURIComponent(value)
}

/** Appends query parameters to a path, encoding names and values. */
export function withQuery(
  basePath: string,
  query: Record<string, string | number | undefined>
): string {
  const pairs = Object.entries(query)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`)
  if (pairs.length === 0) return basePath
  return basePath + (basePath.includes('?') ? '&' : '?') + pairs.join('&')
}
