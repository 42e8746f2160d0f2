/**
 * README.md and docs/*.md as a user and a maintainer rely on them (issue 28): a README read in
 * five minutes, the depth in docs/, every promise beside the test that holds it (an HTML comment,
 * `<!-- test: file › name -->`, invisible when rendered), and no link that leads nowhere. The
 * rules are in scripts/docs-check.ts, which a writer can also run by hand; each is tried here on
 * a page made to break it, so that a check that passes everything is seen.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  anchorsOf,
  checkProblem,
  checksIn,
  commentProblems,
  documentationFiles,
  linkProblem,
  linksIn,
  pointerProblem,
  pointersIn,
  promisesWithoutPointer,
  slug,
  testTitles,
  titleMatches
} from '../../scripts/docs-check.js'
import { documentedSources } from '../../scripts/documented-sources.js'
import { projectRoot } from '../../scripts/run-action.js'

const root = projectRoot()
const pages = documentationFiles(root).map(
  path => [path, readFileSync(join(root, path), 'utf8')] as const
)
const readme = pages[0]?.[1] ?? ''

/**
 * README as GitHub shows it: without its comments. Code blocks and inline code are shown, so a
 * test file named there is on the page too; a comment GitHub would show as text is found by
 * commentProblems.
 */
const rendered = (text: string) => text.replace(/<!--[\s\S]*?-->/g, '')

describe('README is read in five minutes', () => {
  test('at most 450 lines, with the first example within the first 60', () => {
    const lines = readme.split('\n')
    expect(lines.length).toBeLessThanOrEqual(450)
    const firstYaml = lines.findIndex(line => /^```ya?ml/.test(line)) + 1
    expect(firstYaml).toBeGreaterThan(0)
    expect(firstYaml).toBeLessThanOrEqual(60)
  })

  test('its rendered text names no test file: the pointers are comments', () => {
    expect(rendered(readme).match(/__tests__\/\S*/g) ?? []).toEqual([])
    expect(rendered(readme).match(/\S+\.test\.ts/g) ?? []).toEqual([])
  })

  test('it keeps the sections a user looks for, and links every page of docs/', () => {
    const headings = [...readme.matchAll(/^## (.+)$/gm)].map(m => m[1])
    expect(headings).toEqual(
      expect.arrayContaining(['Usage', 'Permissions', 'Inputs', 'Outputs', 'Read more'])
    )
    for (const [path] of pages.slice(1))
      expect({ path, linked: readme.includes(`](${path}`) }).toEqual({ path, linked: true })
  })

  test('no page of README or docs/ is over 450 lines', () => {
    const long = pages
      .map(([path, text]) => [path, text.split('\n').length] as const)
      .filter(([, n]) => n > 450)
    expect(long).toEqual([])
  })
})

describe('every pointer names a test that exists', () => {
  test.each(pages)('%s', (path, text) => {
    const pointers = pointersIn(path, text)
    if (path === 'README.md') expect(pointers.length).toBeGreaterThan(20)
    const broken = pointers
      .map(p => [p.where, pointerProblem(p, root)] as const)
      .filter(([, problem]) => problem !== undefined)
    expect(broken).toEqual([])
    const checks = checksIn(path, text).filter(c => checkProblem(c, root) !== undefined)
    expect(checks).toEqual([])
  })

  test('a pointer to a missing file, a missing test or the wrong describe block is caught', () => {
    const at = (file: string, name: string) => pointerProblem({ where: 'x', file, name }, root)
    expect(at('__tests__/unit/none.test.ts', 'x')).toMatch(/not a test file/)
    expect(at('__tests__/unit/docs.test.ts', 'no such test')).toMatch(/no test named/)
    // the real name, without its describe block, and under another one
    expect(
      at(
        '__tests__/unit/docs.test.ts',
        'README is read in five minutes › no page of README or docs/ is over 450 lines'
      )
    ).toBeUndefined()
    expect(
      at('__tests__/unit/docs.test.ts', 'no page of README or docs/ is over 450 lines')
    ).toMatch(/no test named/)
    expect(
      at('__tests__/unit/docs.test.ts', 'links › no page of README or docs/ is over 450 lines')
    ).toMatch(/no test named/)
    // a table test by its template, or as jest prints one row of it
    expect(
      at('__tests__/unit/docs.test.ts', 'every pointer names a test that exists › %s')
    ).toBeUndefined()
    expect(
      at('__tests__/unit/docs.test.ts', 'every pointer names a test that exists › README.md')
    ).toBeUndefined()
  })

  test('no pointer is shown as text, and every comment that starts like a pointer is one', () => {
    const shown = pages.flatMap(([path, text]) => commentProblems(path, text))
    expect(shown).toEqual([])
  })

  test('a pointer GitHub would show, or one written wrong, is caught; one on its own line is not', () => {
    const page = [
      'The step stops. <!-- test: __tests__/integration/cli.test.ts › --help lists the inputs -->',
      '<!-- test: __tests__/integration/cli.test.ts › --help lists the inputs -->',
      'It waits. <!-- test: __tests__/unit/x.test.ts › a plain name -->',
      '| `a` | b <!-- test: __tests__/unit/x.test.ts › the --dry-run flag --> |',
      '<!-- test: __tests__/unit/x.test.ts - a dash, not › -->',
      '<!--test:__tests__/unit/x.test.ts › no spaces-->',
      '```yaml',
      'a: 1 <!-- test: __tests__/unit/x.test.ts › in code -->',
      '```',
      '<!-- a plain comment -- with dashes -->'
    ].join('\n')
    expect(commentProblems('p.md', page).map(c => c.where)).toEqual([
      'p.md:1',
      'p.md:4',
      'p.md:5',
      'p.md:6',
      'p.md:8'
    ])
  })

  test('a check pointer names something that runs checks, not any file', () => {
    const at = (file: string) => checkProblem({ where: 'x', file, name: 'y' }, root)
    expect(at('.ci/run')).toBeUndefined()
    expect(at('scripts/docs-check.ts')).toBeUndefined()
    expect(at('README.md')).toMatch(/runs no check/)
    expect(at('package.json')).toMatch(/runs no check/)
    expect(at('.ci/none')).toMatch(/no file/)
  })

  test('a pointer to a skipped, todo or failing test holds nothing', () => {
    const { idle } = testTitles(
      [
        "test.skip('skipped', () => {})",
        "test.todo('todo')",
        "it.failing('failing', () => {})",
        "describe.skip('off', () => { test('inside', () => {}) })",
        "test('runs', () => {})"
      ].join('\n')
    )
    expect(idle).toEqual([['skipped'], ['todo'], ['failing'], ['off', 'inside']])
    const dir = mkdtempSync(join(tmpdir(), 'docs-check-'))
    mkdirSync(join(dir, '__tests__/unit'), { recursive: true })
    writeFileSync(
      join(dir, '__tests__/unit/idle.test.ts'),
      "test.skip('off', () => {})\ntest('on', () => {})\ntest.todo('later')\n"
    )
    const at = (name: string) =>
      pointerProblem({ where: 'x', file: '__tests__/unit/idle.test.ts', name }, dir)
    expect(at('off')).toMatch(/holds nothing/)
    expect(at('later')).toMatch(/holds nothing/)
    expect(at('on')).toBeUndefined()
    rmSync(dir, { recursive: true, force: true })
  })

  test('test titles are read with their describe blocks, table forms and quotes of every kind', () => {
    const source = [
      "describe('outer', () => {",
      "  test.each([[1, '(']])('row %i: %s', () => {})",
      '  describe("inner", () => { it(`a ${kind} case`, () => {}) })',
      "  if (/x/.test('not a test')) {}",
      '})',
      "test.concurrent('top level', async () => {})"
    ].join('\n')
    expect(testTitles(source).tests).toEqual([
      ['outer', 'row %i: %s'],
      ['outer', 'inner', 'a ${kind} case'],
      ['top level']
    ])
    expect(titleMatches('a ${kind} case', 'a cluster case')).toBe(true)
    expect(titleMatches('row %i: %s', 'row 2: x')).toBe(true)
    expect(titleMatches('row %i: %s', 'rows 2: x')).toBe(false)
  })
})

describe('README and docs/ keep a pointer beside each behaviour they promise', () => {
  test.each(pages)('%s', (path, text) => {
    // Each paragraph, list item or table that says the step always / never does something, that
    // something fails, is retried, waits, stops, is sent, written, refused, skipped or
    // decommissioned, has at least one pointer right after it.
    const bare = promisesWithoutPointer(path, text).map(u => `${u.where}: ${u.text.slice(0, 100)}`)
    expect(bare).toEqual([])
  })

  test('a promise without a pointer is found; one with a pointer after it, or a plain sentence, is not', () => {
    const page = [
      '# Page',
      '',
      'A write that fails is retried.',
      '<!-- test: __tests__/unit/x.test.ts › y -->',
      '',
      '- The step waits for the job.',
      '- It never sends the token elsewhere.',
      '  <!-- test: __tests__/unit/x.test.ts › z -->',
      '',
      '| input | meaning |',
      '| ----- | ------- |',
      '| `a`   | the run stops |',
      '',
      '<!-- test: __tests__/unit/x.test.ts › t -->',
      '',
      'A plain sentence about the weather.',
      '',
      '```yaml',
      'fails: always # in code, not prose',
      '```'
    ].join('\n')
    expect(promisesWithoutPointer('page.md', page).map(u => u.where)).toEqual(['page.md:6'])
  })

  test('a promise said with another verb is found too', () => {
    const said = [
      'Entries outside the filter are kept.',
      'The step refuses a state file of another cluster.',
      'A bad item is dropped, a warning is ignored, a retry follows.',
      'It decommissions what vanished; the service rejects the rest.'
    ]
    for (const sentence of said)
      expect({ sentence, bare: promisesWithoutPointer('p.md', sentence).length }).toEqual({
        sentence,
        bare: 1
      })
  })
})

describe('the example table reads every block a user copies', () => {
  test('a block indented in a list item, or fenced with ~~~, is run like any other', () => {
    const dir = mkdtempSync(join(tmpdir(), 'docs-blocks-'))
    mkdirSync(join(dir, 'examples'))
    writeFileSync(
      join(dir, 'README.md'),
      [
        '## Jobs',
        '',
        '- In a list item:',
        '',
        '  ```yaml',
        '  - uses: OWNER/record-deployment@v1',
        '    with:',
        '      labels: a',
        '  ```',
        '',
        '~~~yaml',
        '- uses: OWNER/record-deployment@v1',
        '  with:',
        '    labels: b',
        '~~~',
        ''
      ].join('\n')
    )
    const found = documentedSources(dir).map(s => [s.source, s.document])
    rmSync(dir, { recursive: true, force: true })
    expect(found).toEqual([
      ['README.md: Jobs', [{ uses: 'OWNER/record-deployment@v1', with: { labels: 'a' } }]],
      ['README.md: Jobs', [{ uses: 'OWNER/record-deployment@v1', with: { labels: 'b' } }]]
    ])
  })
})

describe('links resolve', () => {
  test.each(pages)('%s: every relative link and heading anchor', (path, text) => {
    const broken = linksIn(path, text)
      .map(link => [link.where, linkProblem(path, link.target, root)] as const)
      .filter(([, problem]) => problem !== undefined)
    expect(broken).toEqual([])
  })

  test("anchors follow GitHub's rules", () => {
    expect(slug('Promote staging to production, with labels')).toBe(
      'promote-staging-to-production-with-labels'
    )
    expect(slug('Quick start (development)')).toBe('quick-start-development')
    expect(slug('Storage record (written when `registry-url` is set; uses `digest`)')).toBe(
      'storage-record-written-when-registry-url-is-set-uses-digest'
    )
    expect(slug("Outputs within GitHub's limits")).toBe('outputs-within-githubs-limits')
    expect([...anchorsOf('## Labels\n\n```\n## not a heading\n```\n\n### Labels\n')]).toEqual([
      'labels',
      'labels-1'
    ])
  })

  test('a link to a missing file or a missing heading is caught, one outside code only', () => {
    expect(linkProblem('README.md', 'docs/none.md', root)).toMatch(/does not exist/)
    expect(linkProblem('README.md', '#no-such-heading', root)).toMatch(/no heading/)
    expect(linkProblem('docs/cluster.md', '../README.md#usage', root)).toBeUndefined()
    expect(linkProblem('docs/cluster.md', 'state-file.md', root)).toBeUndefined()
    const links = linksIn(
      'p.md',
      '[a](x.md) `[b](y.md)` [c](https://example.com)\n```\n[d](z.md)\n```'
    )
    expect(links.map(l => l.target)).toEqual(['x.md'])
    // every title form and an angle-bracketed target are links too; an encoded anchor is decoded
    const titled = linksIn(
      'p.md',
      `[a](x.md "t") [b](y.md 't') [c](z.md (t)) [d](<w w.md>) ![e](img.png)`
    )
    expect(titled.map(l => l.target)).toEqual(['x.md', 'y.md', 'z.md', 'w w.md', 'img.png'])
    expect(linkProblem('docs/development.md', '#quick-start-%28development%29', root)).toMatch(
      /no heading/
    )
    expect(linkProblem('docs/development.md', '#q%75ick-start-development', root)).toBeUndefined()
  })
})
