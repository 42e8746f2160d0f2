/**
 * GitHub shows 10 warning annotations of a step: the action's log makes at most 9 (8 warnings and
 * one saying the rest are log lines), and the rest are plain lines, none lost.
 */
import { jest } from '@jest/globals'
import { actionLog, WARNING_ANNOTATIONS } from '../../src/runner/log-writer.js'

test('20 warnings: 8 annotations, one saying the rest are log lines starting "Warning:", and 12 such lines', () => {
  let written = ''
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation(chunk => {
    written += String(chunk)
    return true
  })
  try {
    for (let i = 1; i <= 20; i++) actionLog.warning(`cause ${i}`)
  } finally {
    spy.mockRestore()
  }
  const lines = written.split(/\r?\n/).filter(Boolean)
  const annotations = lines.filter(l => l.startsWith('::warning'))
  expect(WARNING_ANNOTATIONS).toBe(8)
  expect(annotations).toHaveLength(9)
  expect(annotations.slice(0, 8)).toEqual(
    Array.from({ length: 8 }, (_, i) => `::warning::cause ${i + 1}`)
  )
  expect(annotations[8]).toMatch(/the rest are in the log as lines starting "Warning:"/)
  expect(lines.filter(l => l.startsWith('Warning: cause '))).toEqual(
    Array.from({ length: 12 }, (_, i) => `Warning: cause ${i + 9}`)
  )
})
