#!/usr/bin/env node
// `record-deployment`, the package's bin (dist/cli.js): the action as a command line.
import { ACTION_YML } from './action-yml.js'
import { watchStderr, writeStderr, writeStdout } from '../runner/stdio-writer.js'
import { runCli } from './run-cli.js'
import { STDOUT_LOST_STATUS, watchStdout } from './stdout-lost.js'

// A closed or full stdout: one line on stderr and STDOUT_LOST_STATUS, no stack trace. (Listened
// to, never written here: every write goes through stdio-writer.ts.)
// eslint-disable-next-line no-restricted-properties
const stdoutLost = watchStdout(process.stdout, writeStderr, () => {
  process.exitCode = STDOUT_LOST_STATUS
})
// A stderr that cannot be written loses the log, not the run nor its stdout JSON.
// eslint-disable-next-line no-restricted-properties
watchStderr(process.stderr)
const status = await runCli(process.argv.slice(2), process.env, ACTION_YML, {
  stdout: writeStdout,
  stderr: writeStderr
})
process.exitCode = stdoutLost() ? STDOUT_LOST_STATUS : status
