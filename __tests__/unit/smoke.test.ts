import { ACTION_VERSION } from '../../src/version.js'
test('version', () => {
  expect(ACTION_VERSION).toMatch(/^\d+\.\d+\.\d+$/)
})
