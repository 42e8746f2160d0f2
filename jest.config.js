/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }]
  },
  testMatch: ['**/__tests__/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '/build/'],
  testTimeout: 30000,
  // Most of the suite's wall time is waiting (the service's 1 s between writes, retry waits), not
  // CPU: jest's default of one worker per core but one (a single worker on 2 cores) leaves the
  // cores idle through those waits. Four workers overlap them; the whole suite uses about 45 s of
  // CPU, so on 2 cores it is bound by its slowest file, not by the cores.
  maxWorkers: 4,
  reporters: ['default', '<rootDir>/scripts/jest-plain-summary.js']
}
