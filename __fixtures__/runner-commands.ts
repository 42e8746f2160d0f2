/**
 * The runner's reading of a step's output, written here from its documented rules and not from
 * src/shared/untrusted.ts (a test oracle must not share the code it checks): a line ends at LF, CR LF or
 * a lone CR; a line that starts with `::` after white space, or holds `##[` anywhere, is run as a
 * workflow command. (The summary's reading, GitHub's GFM parser and filters: gfm.ts.)
 */
import fc from 'fast-check'

/** .NET's char.IsWhiteSpace, which the runner's TrimStart uses before looking for `::`. */
const DOTNET_SPACE = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*/

/** Every line of `output` the runner would run as a workflow command. */
export function runnerCommands(output: string): string[] {
  return output
    .split(/\r\n|\n|\r/)
    .filter(line => line.replace(DOTNET_SPACE, '').startsWith('::') || line.includes('##['))
}

/**
 * The commands that are not the step's own: its own are `::debug::`, `::warning::`, `::error::`
 * and `::notice::` lines (whose text core escapes) with no `##[` in them, and `::add-mask::`
 * of one of `secrets`.
 */
export function foreignCommands(output: string, secrets: readonly string[] = []): string[] {
  return runnerCommands(output).filter(line => {
    if (line.includes('##[')) return true
    if (/^::(debug|warning|error|notice)( [^:]*)?::/.test(line)) return false
    const mask = /^::add-mask::(.*)$/.exec(line)
    return !(mask && secrets.includes(mask[1] as string))
  })
}

/** What a hostile value tries: workflow commands, line ends, markup, mixed with plain text. */
export const HOSTILE_PIECES = [
  '::',
  '::add-mask::x',
  '::stop-commands::',
  '::error title=t::',
  '##[',
  '##[add-mask]',
  '#',
  '\n',
  '\r',
  '\r\n',
  '\u0085',
  '\u2028',
  '\u001b[31m',
  '\u0000',
  '\t',
  ' ',
  '\u00a0',
  '\u3000',
  '<!--',
  '<img src=x>',
  '[t](https://evil.example)',
  'https://x.example',
  'www.x.example',
  'a@b.example',
  '`',
  '|',
  '\\',
  '*',
  '_',
  '$',
  '&lt;',
  'name'
]

/** A string built of hostile pieces and arbitrary characters. */
export const hostileText = (maxLength = 12): fc.Arbitrary<string> =>
  fc
    .array(
      fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_PIECES) },
        { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 4 }) }
      ),
      { minLength: 1, maxLength }
    )
    .map(parts => parts.join(''))
