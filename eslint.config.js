// A small rule set (#14): what a reviewer should not have to look for. Type-aware, over src/ and test/.
import { createRequire } from 'node:module'
import tseslint from 'typescript-eslint'

/** The folders of layers 1 to 7, as the layer rules list them. */
const CORE_FOLDERS = createRequire(import.meta.url)('./.dependency-cruiser.cjs')
  .LAYERS.slice(0, 7)
  .flatMap((layer) => layer.folders)

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
  {
    // The core (layers 1-7, .dependency-cruiser.cjs) runs where Node does not (#28): beside its imports,
    // which dependency-cruiser holds, it names none of Node's globals. src/internal/bytes.ts has bytes and
    // text, src/internal/later.ts the scheduler, Platform the rest (files, network, CPU time).
    files: [`src/{${CORE_FOLDERS.join(',')}}/**/*.ts`],
    rules: {
      'no-restricted-globals': [
        'error',
        ...['Buffer', 'process', 'setImmediate', 'clearImmediate', 'global', '__dirname', '__filename', 'require'].map(
          (name) => ({
            name,
            message: `${name} is Node's: the core runs in a browser too; see CONTRIBUTING.md, Layers`,
          }),
        ),
      ],
    },
  },
]
