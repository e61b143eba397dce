// A small rule set (#14): what a reviewer should not have to look for. Type-aware, over src/ and test/.
import tseslint from 'typescript-eslint'

export default [
  { ignores: ['dist/', 'node_modules/', '.cache/', 'bench/', 'scripts/', 'eslint.config.js'] },
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tseslint.parser, parserOptions: { projectService: true } },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/no-floating-promises': 'error',
      // `typeof import('node:fs')` stays allowed: vi.mock factories are hoisted above every import.
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false },
      ],
    },
  },
]
