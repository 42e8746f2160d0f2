/**
 * A stdout that cannot be written: its reader gone (`| head -c 10`, EPIPE) or its file full
 * (`> /dev/full`, ENOSPC). Node reports either as an `error` event on process.stdout, which with
 * no listener ends the process with a stack trace. Instead: one line on stderr, once, and exit
 * status 1 (the outputs did not reach the pipeline), whatever the run's own status was.
 */

/** The exit status when stdout could not be written (docs/command-line.md, `--help`). */
export const STDOUT_LOST_STATUS = 1

interface Emitter {
  on(event: 'error', listener: (error: Error) => void): unknown
}

const REASONS: Record<string, string> = {
  EPIPE: 'its reader closed it',
  ENOSPC: 'no space left on its device',
  ERR_STREAM_DESTROYED: 'it was closed'
}

/** The line said on stderr when stdout failed with `error`. */
export function stdoutLostLine(error: Error): string {
  const code = String((error as { code?: unknown }).code ?? '')
  const reason = REASONS[code] ?? (code || error.message.split('\n')[0] || 'an error')
  return (
    `record-deployment: could not write to stdout (${code ? `${code}: ` : ''}${reason}); ` +
    `its JSON is lost, exit ${STDOUT_LOST_STATUS}; what the log says was recorded stays recorded\n`
  )
}

/**
 * Listens for `stdout`'s errors: the first writes stdoutLostLine on `stderr` and calls `lost`;
 * later ones (each write after the first failed) say nothing. Returns whether stdout was lost.
 */
export function watchStdout(
  stdout: Emitter,
  stderr: (text: string) => void,
  lost: () => void
): () => boolean {
  let failed = false
  stdout.on('error', error => {
    if (failed) return
    failed = true
    stderr(stdoutLostLine(error))
    lost()
  })
  return () => failed
}
