import * as core from '@actions/core'
import { main } from './main.js'

try {
  await main()
} catch (error) {
  // A bug of ours, not the user's: the message for the log, the stack for a debug run.
  if (error instanceof Error && error.stack) core.debug(error.stack)
  core.setFailed(
    `record-deployment stopped on an unexpected error: ${error instanceof Error ? error.message : String(error)}. ` +
      'Re-run with debug logging for the details, and report it with that log.'
  )
}
