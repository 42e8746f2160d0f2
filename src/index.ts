import * as core from '@actions/core'
import { main } from './main.js'

try {
  await main()
} catch (error) {
  core.setFailed(
    `record-deployment stopped on an unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`
  )
}
