/**
 * Whether the run is for a pull request from a fork (then its token is read-only), read from the
 * event payload the runner writes. The hint it leads to, through the bundled action:
 * __tests__/integration/hints.test.ts ("a pull request from a fork").
 */
import { forkOf } from '../../src/step/run-event.js'

const pull = (head: unknown, base: unknown = { full_name: 'acme/web' }) => ({
  pull_request: { number: 5, head: { repo: head }, base: { repo: base } }
})

test.each([
  ['pull_request', pull({ full_name: 'someone/web' }), 'someone/web'],
  ['pull_request_review', pull({ full_name: 'someone/web' }), 'someone/web'],
  ['pull_request_review_comment', pull({ full_name: 'someone/web' }), 'someone/web'],
  ['pull_request', pull(null), 'deleted since'],
  // The same repository, whatever the letter case of its name.
  ['pull_request', pull({ full_name: 'Acme/Web' }), undefined],
  // pull_request_target runs with the base repository's token.
  ['pull_request_target', pull({ full_name: 'someone/web' }), undefined],
  ['push', pull({ full_name: 'someone/web' }), undefined],
  // Payloads that say too little are not taken for a fork.
  ['pull_request', {}, undefined],
  ['pull_request', pull({ full_name: 'someone/web' }, null), undefined],
  ['pull_request', pull({}), undefined],
  ['pull_request', { pull_request: 'x' }, undefined]
])('%s with %j: %s', (eventName, payload, expected) => {
  expect(forkOf({ eventName, payload })).toBe(expected)
})
