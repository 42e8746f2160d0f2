export const NPM: string
export const LOCK_FLAGS: string[]
