/**
 * GitHub's reading of a job summary, from its documented pipeline and not from src/ (a test oracle
 * must not share the code it checks): cmark-gfm with the autolink, table, strikethrough and
 * tagfilter extensions, raw HTML let through (`--unsafe`: GitHub sanitizes it afterwards, so any
 * that comes out is a failure here), then the filters github.com runs over the HTML's text outside
 * `code`, `pre` and `a`: mentions (`@user`, `@org/team`), issue references (`#12`, `org/repo#12`,
 * `GH-12`), commit shas, and what autolinking missed (bare URLs, `www.`, e-mail addresses).
 */
import { execFileSync, spawnSync } from 'node:child_process'

export const GFM_EXTENSIONS = ['autolink', 'table', 'strikethrough', 'tagfilter']

/** Whether cmark-gfm runs here; the message to fail with when not. */
export function cmarkGfmMissing(): string | undefined {
  const probe = spawnSync('cmark-gfm', ['--version'], { encoding: 'utf8' })
  if (probe.status === 0) return undefined
  return (
    "cmark-gfm (GitHub's GFM parser) is not installed: the job summary tests render with it. " +
    'Install it from Debian (`apt-get install -y cmark-gfm`; .ci/run does) or put it on PATH.'
  )
}

/** The HTML cmark-gfm makes of `markdown`, with GitHub's extensions. */
export function renderGfm(markdown: string): string {
  return execFileSync('cmark-gfm', ['--unsafe', ...GFM_EXTENSIONS.flatMap(e => ['-e', e])], {
    input: markdown,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024
  })
}

/** The tags a summary's own Markdown makes: anything else came from text it did not own. */
const OWN_TAGS = new Set([
  'h2',
  'h3',
  'p',
  'ul',
  'li',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
  'code',
  'strong',
  'em'
])

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', '#39': "'" }

/** Text of an HTML fragment: tags dropped, the entities cmark-gfm writes decoded. */
export function textOf(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&(lt|gt|amp|quot|#39);/g, (_, e: string) => ENTITIES[e] as string)
}

/** What GitHub would link in text outside code, each said with the text it found. */
const LINKABLE: Array<[string, RegExp]> = [
  ['mention', /(?:^|[^\w`])@[a-z0-9][a-z0-9-]*(?:\/[\w-]+)?/gi],
  ['issue reference', /(?:^|[^\w&])#\d+\b/g],
  ['cross-repository reference', /[\w.-]+\/[\w.-]+#\d+/g],
  ['GH- reference', /\bGH-\d+\b/gi],
  ['commit sha', /\b[0-9a-f]{7,40}\b/gi],
  ['URL', /\b(?:https?|ftp|mailto|xmpp):\/*\S+/gi],
  ['www. link', /\bwww\.\S+/gi],
  ['e-mail address', /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g],
  ['emoji', /:[a-z0-9_+-]+:/gi]
]

/**
 * Everything in `html` that is a link, an image, HTML the summary's Markdown does not make, or
 * text GitHub's filters would link; `allowed` is text the step owns that may be linked (`#12`, the
 * issue it labeled). Empty when the summary is inert.
 */
export function linkableIn(html: string, allowed: readonly string[] = []): string[] {
  const found: string[] = []
  for (const tag of html.matchAll(/<\/?([a-zA-Z][a-zA-Z0-9]*)[^>]*>|<!--/g)) {
    const name = (tag[1] ?? '!--').toLowerCase()
    if (!OWN_TAGS.has(name) || /\s/.test(tag[0].replace(/^<\/?[a-zA-Z0-9]+/, '').replace(/>$/, '')))
      found.push(`HTML: ${tag[0]}`)
  }
  const outsideCode = textOf(html.replace(/<code>[\s\S]*?<\/code>/g, ' '))
  for (const [what, pattern] of LINKABLE)
    for (const match of outsideCode.matchAll(pattern)) {
      const text = match[0].trim().replace(/^[^\w@#:]/, '')
      if (!allowed.includes(text)) found.push(`${what}: ${text}`)
    }
  return found
}

/**
 * The text a value the step does not own shows as (docs/untrusted-input.md): each control
 * character (C0, DEL, C1, the line and paragraph separators, the bidirectional controls) as its
 * JSON escape, `\n`, `\r`, `\t`, `\u001b`; everything else as it is.
 */
export function shownAs(text: string): string {
  return text.replace(
    // eslint-disable-next-line no-control-regex
    /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g,
    c =>
      ({ '\n': '\\n', '\r': '\\r', '\t': '\\t' })[c] ??
      `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`
  )
}
