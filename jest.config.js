import { availableParallelism } from 'node:os'

/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }],
    // adds the import attribute its JSON schema imports lack (see the file)
    '/@actions/workflow-parser/dist/.+\\.js$': '<rootDir>/scripts/jest-json-imports.js'
  },
  transformIgnorePatterns: ['/node_modules/(?!@actions/workflow-parser/)'],
  testMatch: ['**/__tests__/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '/build/'],
  testTimeout: 30000,
  // Most of the suite's wall time is waiting (the service's 1 s between writes, retry waits), not
  // CPU: jest's default of one worker per core but one is a single worker on 2 cores. Four
  // workers overlap the waiting files (measured on 2 cores: 131 s with three, 112 s with four;
  // no test asserts a time, so a loaded machine is slower, not red).
  maxWorkers: Math.max(4, availableParallelism() - 1),
  // test.concurrent (the example table): runs that mostly wait on the 1 s write spacing overlap
  maxConcurrency: 10,
  reporters: ['default', '<rootDir>/scripts/jest-plain-summary.js']
}
