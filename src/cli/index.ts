#!/usr/bin/env node
// `record-deployment`, the package's bin (dist/cli.js): the action as a command line.
import { ACTION_YML } from './action-yml.js'
import { writeStderr, writeStdout } from '../stdio-writer.js'
import { runCli } from './run-cli.js'

process.exitCode = await runCli(process.argv.slice(2), process.env, ACTION_YML, {
  stdout: writeStdout,
  stderr: writeStderr
})
