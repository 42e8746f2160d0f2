import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['dist/', 'build/', 'node_modules/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }
      ]
    }
  },
  {
    // Every log line goes through src/runner/log-writer.ts (the action) or src/runner/stdio-writer.ts (the
    // command line), which neutralise what the runner would run as a workflow command.
    files: ['src/**/*.ts'],
    ignores: ['src/runner/log-writer.ts', 'src/runner/stdio-writer.ts'],
    rules: {
      'no-console': 'error',
      'no-restricted-properties': [
        'error',
        ...['info', 'debug', 'warning', 'notice', 'error', 'setFailed', 'startGroup', 'group'].map(
          property => ({
            object: 'core',
            property,
            message: 'Log through src/runner/log-writer.ts: it neutralises workflow commands.'
          })
        ),
        ...['stdout', 'stderr'].map(property => ({
          object: 'process',
          property,
          message: 'Write through src/runner/stdio-writer.ts: it neutralises workflow commands.'
        }))
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "ImportDeclaration[source.value='@actions/core'] > ImportSpecifier[imported.name=/^(info|debug|warning|notice|error|setFailed|startGroup|group)$/]",
          message: 'Log through src/runner/log-writer.ts: it neutralises workflow commands.'
        },
        {
          selector: "VariableDeclarator[init.name='core'] > ObjectPattern",
          message: 'Log through src/runner/log-writer.ts: it neutralises workflow commands.'
        }
      ]
    }
  }
)
