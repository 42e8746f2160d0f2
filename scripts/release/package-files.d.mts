export const SHIPPED: string[]
export const REQUIRED: string[]
export function packageProblems(files: string[]): string[]
export function publishDryRunFiles(cwd: string, env?: Record<string, string | undefined>): string[]
