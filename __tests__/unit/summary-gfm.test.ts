/**
 * Over 300 lines: the outcomes' fixtures and the hostile text are read together.
 *
 * The job summary as github.com shows it: rendered with cmark-gfm and GitHub's extensions
 * (__fixtures__/gfm.ts), for each outcome (success, partial failure, total failure, dry run, a
 * cluster with skipped deployments, a cancel), with hostile text in every value the step does not
 * own. Each must read true (title, what and where, each failure's fix, where the rest of a cut list
 * is) and be inert: no link, image, HTML, mention or reference made of that text.
 */
import fc from 'fast-check'
import { cmarkGfmMissing, linkableIn, renderGfm, shownAs, textOf } from '../../__fixtures__/gfm.js'
import { HOSTILE_PIECES } from '../../__fixtures__/runner-commands.js'
import { ServiceError, permissionHint } from '../../src/client/errors.js'
import { cell, inline } from '../../src/runner/markdown.js'
import { emptyResult, failureOf, type RunResult } from '../../src/shared/result.js'
import { renderSummary, type SummaryAbout } from '../../src/step/report.js'

fc.configureGlobal({ seed: Number(process.env['FC_SEED'] ?? 20261127) })

beforeAll(() => {
  // CI must run these: a machine without GitHub's parser fails here, saying how to get it.
  const missing = cmarkGfmMissing()
  if (missing) throw new Error(missing)
})

/** What a hostile service, file or event puts in names and messages. */
const HOSTILE = [
  'foo\\@evil.example',
  'foo@evil.example',
  '@octocat',
  '\\@octocat',
  '@acme/admins',
  '#123',
  '\\#123',
  'evil/repo#1',
  'GH-7',
  'deadbeefcafe1234',
  '0123456789abcdef0123456789abcdef01234567',
  'https://evil.example/x',
  'www.evil.example',
  'mailto:x@evil.example',
  '<img src=x onerror=alert(1)>',
  '[t](https://evil.example)',
  '![i](https://evil.example/i.png)',
  '<!-- hide',
  '<script>alert(1)</script>',
  '<b>bold</b>',
  '`code` | pipe',
  'line\nbreak',
  ':tada:',
  '~~struck~~',
  '**strong**',
  '&lt;b&gt;',
  '1. list',
  '- item'
]
const evil = HOSTILE.join(' ')

const ARTIFACT = {
  name: 'ghcr.io/acme/web',
  version: '1.4.2',
  digest: `sha256:${'ab12'.repeat(16)}`
}
const ABOUT: SummaryAbout = {
  org: 'acme',
  artifact: ARTIFACT,
  deployment: { environment: 'production', physicalEnvironment: 'eu-west-1', name: 'web' },
  storage: { registryUrl: 'https://ghcr.io' }
}

const deploymentPath = '/orgs/acme/artifacts/metadata/deployment-record'
const storagePath = '/orgs/acme/artifacts/metadata/storage-record'
function refused(method: string, path: string, status = 403): ServiceError {
  return new ServiceError({
    method,
    path,
    status,
    serviceMessage: `Resource not accessible by integration ${evil}`,
    hint: permissionHint(method, path, status)
  })
}

function result(over: Partial<RunResult>): RunResult {
  return { ...emptyResult(false, { reads: 1, writes: 2 }), ...over }
}

const record = {
  id: 7,
  digest: ARTIFACT.digest,
  logical_environment: 'production',
  physical_environment: 'eu-west-1',
  deployment_name: 'web'
}
const storage = {
  id: 8,
  name: 'ghcr.io/acme/web',
  registry_url: 'https://ghcr.io',
  status: 'active'
}

/** The summary as github.com shows it: its HTML, and that HTML's text. */
function shown(summary: string): { html: string; text: string } {
  const html = renderGfm(summary)
  return { html, text: textOf(html) }
}

describe('each outcome reads true at a glance', () => {
  test('a success names the artifact as given, its version, short digest, environment', () => {
    const { html, text } = shown(
      renderSummary(result({ deploymentRecords: [record], storageRecords: [storage] }), ABOUT)
    )
    expect(html).toMatch(/^<h2>Deployment recorded<\/h2>/)
    expect(text).toContain('What: ghcr.io/acme/web version 1.4.2, digest sha256:ab12ab12ab12…')
    expect(text).toContain('Where: environment production / eu-west-1')
    // the deployment row: the artifact, not the deployment name alone
    expect(html).toMatch(
      /<td>Deployment record<\/td>\s*<td><code>ghcr.io\/acme\/web<\/code><\/td>\s*<td><code>1.4.2<\/code><\/td>/
    )
    expect(linkableIn(html)).toEqual([])
  })

  test('a partial failure: recorded in part, the refused write with its fix', () => {
    const failure = failureOf(
      'deployment record web in production',
      refused('POST', deploymentPath)
    )
    const { html, text } = shown(
      renderSummary(result({ storageRecords: [storage], failures: [failure] }), ABOUT)
    )
    expect(html).toMatch(/^<h2>Deployment recorded in part<\/h2>/)
    expect(text).toMatch(/Fix: The step needs the permission artifact-metadata: write/)
    expect(linkableIn(html)).toEqual([])
  })

  test('a total failure: "Nothing recorded", never "in part", each fix in the summary', () => {
    const failures = [
      failureOf('storage record ghcr.io/acme/web', refused('POST', storagePath)),
      failureOf('deployment record web in production', refused('POST', deploymentPath))
    ]
    const { html, text } = shown(renderSummary(result({ failures }), ABOUT))
    expect(html).toMatch(/^<h2>Nothing recorded<\/h2>/)
    expect(text).not.toMatch(/in part/)
    expect(text.match(/Fix: The step needs the permission artifact-metadata: write/g)).toHaveLength(
      2
    )
    expect(html).toContain('<h3>Failed (2)</h3>')
    expect(linkableIn(html)).toEqual([])
  })

  test('a dry run of 300 label writes: previewed, each row names its labels, the rest in `planned`', () => {
    const preview = Array.from({ length: 300 }, (_, i) => ({
      method: i % 2 ? 'DELETE' : 'POST',
      path: `/repos/acme/web/issues/${i + 1}/labels${i % 2 ? `/${encodeURIComponent(evil)}` : ''}`,
      body: i % 2 ? undefined : { labels: ['deployed', evil] },
      labels:
        i % 2
          ? { action: 'remove' as const, names: [evil], target: `pull request #${i + 1}` }
          : { action: 'add' as const, names: ['deployed', evil], target: `pull request #${i + 1}` }
    }))
    const summary = renderSummary(
      { ...result({ preview }), dryRun: true, labelsOnly: true },
      {
        org: 'acme',
        repository: { owner: 'acme', name: 'web' },
        labels: { add: ['deployed', evil], remove: [evil] }
      }
    )
    const { html, text } = shown(summary)
    expect(html).toMatch(/^<h2>Dry run: previewed, nothing was written<\/h2>/)
    expect(text).not.toContain('unknown')
    expect(html).toContain('<td>add <code>deployed</code>, <code>')
    expect(html).toMatch(
      /<td>remove <code>[^<]*octocat[^<]*<\/code> from pull request <code>#2<\/code><\/td>/
    )
    expect(html.match(/<tr>/g)).toHaveLength(101) // the header and 100 rows
    expect(text).toContain('... and 200 more in the planned output and the log')
    expect(linkableIn(html)).toEqual([])
  })

  test('a cluster whose 40 deployments were skipped: nothing recorded, each cause counted once with what to do', () => {
    const items = Array.from({ length: 40 }, (_, i) => ({
      name: i < 30 ? `ghcr.io/acme/svc-${i}` : evil,
      digest: `sha256:${String(i).padStart(64, '0')}`,
      deployment_name: `prod-svc-${i}-${i < 30 ? 'app' : evil}`
    }))
    const deploymentErrors = items.map((d, i) => ({
      cause: i < 30 ? 'not_found' : evil,
      deployment: d
    }))
    const { html, text } = shown(
      renderSummary(result({ deploymentErrors, jobId: 12, jobStatus: 'completed' }), {
        org: 'acme',
        cluster: { name: 'prod-eu-1', environment: 'production', items }
      })
    )
    expect(html).toMatch(/^<h2>Nothing recorded<\/h2>/)
    expect(text).toContain('What: 40 deployments of 31 artifacts')
    expect(text).toContain('Where: environment production, cluster prod-eu-1, organization acme')
    expect(text).toContain('30 not_found: To record them: attest each image')
    expect(text).toMatch(/Not recorded \(40\)/)
    expect(linkableIn(html)).toEqual([])
  })

  test('a cancel after the storage record: cancelled, recorded in part', () => {
    const { html } = shown(
      renderSummary(
        result({
          cancelled: 'SIGINT',
          done: [`storage record ${evil}`],
          failures: [{ what: `deployment record ${evil}`, message: `not sent: ${evil}` }]
        }),
        ABOUT
      )
    )
    expect(html).toMatch(/^<h2>Cancelled \(SIGINT\): recorded in part<\/h2>/)
    expect(linkableIn(html)).toEqual([])
  })
})

describe('hostile text renders inert', () => {
  test('every value the step does not own, in every section: no link, image, HTML, mention or reference', () => {
    const hostileAbout: SummaryAbout = {
      org: evil,
      artifact: { name: evil, version: evil, digest: evil },
      deployment: { environment: evil, physicalEnvironment: evil, cluster: evil, name: evil },
      storage: { registryUrl: evil }
    }
    const run = result({
      storageRecords: [{ id: 1, name: evil, registry_url: evil, repository: evil, status: evil }],
      deploymentRecords: [
        {
          id: 2,
          digest: evil,
          logical_environment: evil,
          physical_environment: evil,
          cluster: evil,
          deployment_name: evil
        }
      ],
      deploymentErrors: [
        { cause: evil, name: evil, deployment: { deployment_name: evil, name: evil, digest: evil } }
      ],
      decommissioned: [{ deployment_name: evil, name: evil, digest: evil, version: evil }],
      jobId: 3,
      jobStatus: evil,
      labeled: [{ number: 12, added: [evil], removed: [evil], gone: [evil] }],
      failures: [
        { what: evil, message: evil, hint: `Check \`${evil}\` and ${evil}` },
        failureOf(evil, refused('POST', `${deploymentPath}/${evil}`, 404))
      ],
      notAttempted: [evil],
      noRecordReturned: ['deployment-record']
    })
    const { html } = shown(renderSummary(run, hostileAbout))
    // `#12` is the step's own: the issue it labeled
    expect(linkableIn(html, ['#12'])).toEqual([])
    for (const piece of ['octocat', 'evil.example', 'GH-7', 'deadbeefcafe1234'])
      expect(html).toContain(piece)
  })

  test('the check catches what escaping left: `\\@` and `\\#` render bare, `foo\\@evil.example` as a mailto link', () => {
    const html = renderGfm('| a |\n|---|\n| foo\\@evil.example \\@octocat \\#123 |\n')
    expect(linkableIn(html)).toEqual(
      expect.arrayContaining([
        'HTML: <a href="mailto:foo@evil.example">',
        'mention: @octocat',
        'issue reference: #123'
      ])
    )
  })

  test('any generated string, in a table cell and in a list item, shows its text and makes nothing', () => {
    const texts = fc.sample(
      fc
        .array(
          fc.oneof(
            { weight: 3, arbitrary: fc.constantFrom(...HOSTILE, ...HOSTILE_PIECES) },
            { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) }
          ),
          { minLength: 1, maxLength: 6 }
        )
        .map(parts => parts.join(' ')),
      500
    )
    // One document of 500 rows and 500 list items: cmark-gfm runs once.
    const markdown = [
      '| # | text |',
      '|---|---|',
      ...texts.map((t, i) => `| ${i} | ${cell(t)} |`),
      '',
      ...texts.map((t, i) => `- ${i}: ${inline(t)}`),
      ''
    ].join('\n')
    const html = renderGfm(markdown)
    expect(linkableIn(html)).toEqual([])
    const cells = [...html.matchAll(/<td>(\d+)<\/td>\s*<td>([\s\S]*?)<\/td>/g)]
    const items = [...html.matchAll(/<li>(\d+):( [\s\S]*?)?<\/li>/g)]
    expect(cells).toHaveLength(500)
    expect(items).toHaveLength(500)
    // What shows is the text, its control characters as JSON escapes (white space at the ends of a
    // cell is the table's).
    for (const [, i, content] of [...cells, ...items])
      expect(textOf(content ?? '').trim()).toBe(shownAs(texts[Number(i)] as string).trim())
  })
})
