/**
 * A comment in src/ that sends the reader to a page sends them somewhere that exists: every
 * `*.md` file named resolves in the repository (a bare name at its root or in docs/), and a
 * section named as `(docs/page.md: Heading)` is a heading of that page. Likewise for the other
 * repository files a comment names by path (`__tests__/...`, `scripts/...`, `docs/...`).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { projectRoot } from '../../scripts/run-action.js'

const root = projectRoot()

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap(entry => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sources(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

/** The comments of a TypeScript file: `// ...` lines and `/* ... *\/` blocks. */
function commentsOf(text: string): string {
  const blocks = text.match(/\/\*[\s\S]*?\*\//g) ?? []
  const lines = text.match(/\/\/[^\n]*/g) ?? []
  return [...blocks, ...lines].join('\n')
}

const references = sources(join(root, 'src')).flatMap(file => {
  const comments = commentsOf(readFileSync(file, 'utf8'))
  const where = relative(root, file)
  const pages = [...comments.matchAll(/(?<![\w/.-])([\w-]+\/)*[\w-]+\.md\b/g)].map(m => m[0])
  const paths = [
    ...comments.matchAll(
      /(?<![\w/.-])(?:docs|scripts|__tests__|__fixtures__|emulator)\/[\w./-]+\.\w+/g
    )
  ].map(m => m[0])
  const sections = [...comments.matchAll(/\((docs\/[\w-]+\.md): ([^)\n]+)\)/g)].map(
    m => [m[1] as string, (m[2] as string).trim()] as const
  )
  return [
    ...pages.map(page => ({ where, page, section: undefined as string | undefined })),
    ...paths.map(page => ({ where, page, section: undefined as string | undefined })),
    ...sections.map(([page, section]) => ({ where, page, section }))
  ]
})

test('src/ comments name pages and files that exist, and sections their pages have', () => {
  expect(references.length).toBeGreaterThan(0)
  const missing = references.filter(({ page, section }) => {
    const found = [page, join('docs', page)].find(p => existsSync(join(root, p)))
    if (!found) return true
    if (section === undefined) return false
    const headings = readFileSync(join(root, found), 'utf8').match(/^#+ .*$/gm) ?? []
    return !headings.some(h => h.replace(/^#+ /, '') === section)
  })
  expect(missing).toEqual([])
})
