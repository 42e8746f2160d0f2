/**
 * The one redaction point: every text the step quotes (log lines, debug ones included, the job
 * summary before its Markdown escaping, every output with `failed`, the command line's stderr
 * and stdout JSON) passes through `redact` first. What becomes `***`:
 * - each registered secret (the token, proxy passwords) in every form it can take in that text:
 *   as it is, JSON-escaped, percent-encoded, Markdown-escaped as the summary escapes a cell, and
 *   base64 of it alone and of `x-access-token:<it>` (an echoed Basic `Authorization`);
 * - what any `Authorization` header carries (`Bearer ...`, `token ...`, `Basic ...`), and text
 *   shaped like a GitHub token (`ghs_...`, `github_pat_...`), registered or not;
 * - URL user-info (`user:password@` in any URL, however it fails to parse);
 * - `access_token=`, `token=` and the like in a query.
 * The runner masks registered secrets in the log by exact text only (`core.setSecret`); an escaped
 * or encoded form would pass it, which is why the step redacts its own text here too.
 */
import { isUtf8 } from 'node:buffer'
import { cell, codeCell } from './markdown.js'

const MASK = '***'
/** Forms shorter than this are not masked: a one-character "secret" would blank the text. */
const SHORTEST = 4

const secrets = new Set<string>()
let texts: string[] = []
let forms: RegExp[] = []

/** Registers a secret; every form of it is masked from now on. Blank values are ignored. */
export function addSecret(value: string | undefined): void {
  const secret = value?.trim()
  if (!secret || secret.length < SHORTEST || secrets.has(secret)) return
  secrets.add(secret)
  const all = new Set<string>()
  for (const s of [secret, value as string]) {
    all.add(s)
    all.add(JSON.stringify(s).slice(1, -1))
    all.add(JSON.stringify(JSON.stringify(s)).slice(3, -3))
    all.add(encodeURIComponent(s))
    all.add(encodeURI(s))
    all.add(cell(s))
    all.add(codeCell(s).replace(/^`+ ?| ?`+$/g, ''))
    all.add(base64(s))
    all.add(base64(`x-access-token:${s}`))
    all.add(base64(`:${s}`))
  }
  // Longest first: a form that holds another is masked whole. Whatever the letters' case.
  texts = [...new Set([...texts, ...all])]
    .filter(f => f.length >= SHORTEST)
    .sort((a, b) => b.length - a.length)
  forms = texts.map(form => new RegExp(form.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'giu'))
}

/** The proxy passwords in HTTPS_PROXY / HTTP_PROXY (either case), registered as secrets; returned. */
export function addProxySecrets(env: Record<string, string | undefined>): string[] {
  const found: string[] = []
  for (const name of ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY']) {
    const value = env[name]?.trim()
    if (!value) continue
    // Up to the last `@`, as the URL parser and undici read it (a password may hold one).
    const match = /^(?:[a-z][a-z0-9+.-]*:\/\/)?([^/\s]*)@/i.exec(value)
    const userinfo = match?.[1]
    if (!userinfo) continue
    const colon = userinfo.indexOf(':')
    const password = colon >= 0 ? userinfo.slice(colon + 1) : userinfo
    for (const p of [password, safeDecode(password)]) {
      if (p && p.length >= SHORTEST) {
        addSecret(p)
        found.push(p)
      }
    }
  }
  return found
}

/** Forgets every registered secret (tests). */
export function clearSecrets(): void {
  secrets.clear()
  texts = []
  forms = []
}

/** An `Authorization` value echoed: its scheme kept, what it carries (holding a digit) masked. */
const AUTHORIZATION =
  /\b(Bearer|Basic|token)(\s+|%20)(?=[A-Za-z0-9+/=._~-]*\d)[A-Za-z0-9+/=._~-]{8,}/gi
/** GitHub's token shapes: `ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_` and fine-grained `github_pat_`. */
const GITHUB_TOKEN = /\b(?:gh[pousr]|github_pat)(?:_|\\_|%5F)[A-Za-z0-9_\\]{16,}/gi
/**
 * `scheme://user:password@`: up to the last `@` before a blank, a quote, a backtick or `<>`, so a
 * password holding `/`, `#` or `@` (one that does not parse) is masked whole. Markdown's escaped
 * `\:` and `\@` count as the characters they stand for. The step's own placeholder in its hints,
 * `http://USER:PASSWORD@host:port`, is left as it is.
 */
// Each part bounded (a scheme of at most 32 characters, user-info of at most 512), so that text
// built to make a regular expression backtrack (`a.a.a...`, `a://a://...`) costs time in
// proportion to its length, not to its square.
const USERINFO = /\b([a-z][a-z0-9+.-]{0,31}\\?:\/\/)(?!USER:PASSWORD@)[^\s"'`<>]{0,512}(\\?@)/gi
/** `?access_token=...`, `&token=...`, `client_secret=`, `password=`, `sig=`, `key=` in a query. */
const QUERY_SECRET =
  /([?&;][a-z0-9_.-]{0,64}(?:token|secret|password|passwd|pwd|sig|signature|key)=)[^&#\s"'`<>]+/gi

/** `text` with every secret, in every form, as `***`. */
export function redact(text: string): string {
  if (text === '') return text
  return masked(text).replace(WORD, word => {
    if (!ESCAPE.test(word)) return word
    const plain = decoded(word)
    return masked(plain) === plain ? word : MASK
  })
}

/** The registered forms (whatever their letters' case), then the shapes any secret takes. */
function masked(text: string): string {
  let out = text
  for (const form of forms) out = out.replace(form, MASK)
  return out
    .replace(USERINFO, `$1${MASK}$2`)
    .replace(AUTHORIZATION, `$1$2${MASK}`)
    .replace(GITHUB_TOKEN, MASK)
    .replace(QUERY_SECRET, `$1${MASK}`)
}

/**
 * An escape a service or a proxy may write a secret in: every byte percent-encoded
 * (`%67%68%73...`, either case of hex), `\u0067`, `\x67`, `&#103;` or `&#x67;`. A word (what
 * lies between blanks and quotes) holding one is masked whole when its decoded text holds a
 * secret; words are found in one pass, so crafted text costs time in proportion to its length.
 */
const ESCAPE = /%[0-9A-Fa-f]{2}|\\u[0-9A-Fa-f]{4}|\\x[0-9A-Fa-f]{2}|&#x?[0-9A-Fa-f]{1,6};/
const WORD = /[^\s"'`<>]+/g

/** `word` with its escapes decoded, up to three levels deep (`%2567` is `%67` is `g`). */
function decoded(word: string): string {
  let text = word
  for (let level = 0; level < 3; level++) {
    const next = text
      .replace(/(?:%[0-9A-Fa-f]{2})+/g, run => {
        const bytes = Buffer.from(run.replace(/%/g, ''), 'hex')
        return bytes.toString(isUtf8(bytes) ? 'utf8' : 'latin1')
      })
      .replace(/\\u([0-9A-Fa-f]{4})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
      .replace(/\\x([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
      .replace(/&#(x?)([0-9A-Fa-f]{1,6});/g, (all, x: string, digits: string) => {
        const code = parseInt(digits, x ? 16 : 10)
        return code <= 0x10ffff && (x || /^\d+$/.test(digits)) ? String.fromCodePoint(code) : all
      })
    if (next === text) break
    text = next
  }
  return text
}

/**
 * An output or a JSON document: when it is JSON, its strings are redacted and it stays JSON (a
 * short proxy password such as `null` must not turn `"median_seconds":null` into `***`); else
 * as `redact`.
 */
export function redactJson(value: string): string {
  const text = redact(value)
  if (text === value) return value
  try {
    const parsed: unknown = JSON.parse(value)
    if (typeof parsed === 'object' && parsed !== null) return JSON.stringify(redactDeep(parsed))
  } catch {
    // not JSON: as text
  }
  return text
}

/** Every string in `value` (arrays and plain objects, deep) redacted; the rest as it is. */
export function redactDeep<T>(value: T): T {
  return walk(value, 0) as T
}

function walk(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return redact(value)
  if (depth > 64 || value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map(v => walk(v, depth + 1))
  const proto = Object.getPrototypeOf(value) as unknown
  if (proto !== Object.prototype && proto !== null) return value
  const out: Record<string, unknown> = {}
  for (const [key, v] of Object.entries(value)) out[key] = walk(v, depth + 1)
  return out
}

function base64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64').replace(/=+$/, '')
}

function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text)
  } catch {
    return undefined
  }
}
