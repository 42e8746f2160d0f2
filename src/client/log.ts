/** Where the client and the run report progress; `@actions/core` in the action, a buffer in tests. */
export interface Log {
  debug(message: string): void
  info(message: string): void
  warning(message: string): void
}

export const silentLog: Log = { debug() {}, info() {}, warning() {} }
