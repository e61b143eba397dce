/**
 * The package's types with msw 3 (#33): a consumer's TypeScript, `msw` and `msw/*` mapped to the `msw3`
 * devDependency (as a project with msw 3 installed resolves them), type-checks against dist/'s
 * declarations, whose own `import ... from 'msw'` then reads msw 3's. test/process/node-versions.test.ts
 * runs the same set-up on Node 22 and 24.
 */
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { root } from '../support/processes.js'
import { removeTempDirs, tempDir } from '../support/temp-dirs.js'

const run = promisify(execFile)
const TSC_MS = 60_000

afterAll(removeTempDirs)

const modules = (path: string) => join(root, 'node_modules', path)

/** Type-checks `source` as a consumer's module; resolves with tsc's output (empty when it passes). */
async function typeCheck(source: string): Promise<string> {
  const dir = await tempDir('msw3-types-', {
    'package.json': { type: 'module' },
    'consumer.ts': source,
    'tsconfig.json': {
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noEmit: true,
        // The consumer's own code is checked against the declarations; checking them all took 40 s.
        skipLibCheck: true,
        types: ['node'],
        typeRoots: [modules('@types')],
        paths: {
          msw: [modules('msw3/lib/core/index.d.ts')],
          'msw/node': [modules('msw3/lib/node/index.d.ts')],
          'plant-store-mock/msw': [join(root, 'dist/msw.d.ts')],
        },
      },
      files: ['consumer.ts'],
    },
  })
  try {
    await run(process.execPath, [modules('typescript/bin/tsc'), '-p', dir], { timeout: TSC_MS, killSignal: 'SIGKILL' })
    return ''
  } catch (error) {
    return (error as { stdout?: string }).stdout || (error as Error).message
  }
}

const consumer = (listenOptions: string) => `
import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import { createHandlers } from 'plant-store-mock/msw'

const { handlers, mock } = await createHandlers({ baseUrl: 'http://api.test' })
const server = setupServer(http.get('http://api.test/own', () => HttpResponse.text('own')), ...handlers)
server.listen(${listenOptions})
mock.useScenario('error')
`

describe('plant-store-mock/msw with msw 3', () => {
  it(
    'type-checks in a consumer: the handlers go to setupServer beside its own',
    { timeout: TSC_MS + 5000 },
    async () => {
      const [withMsw3Option, withMsw2Option] = await Promise.all([
        typeCheck(consumer(`{ onUnhandledFrame: 'error' }`)),
        typeCheck(consumer(`{ onUnhandledRequest: 'error' }`)),
      ])
      expect(withMsw3Option).toBe('')
      // The check reads msw 3's types: msw 2's option is unknown there.
      expect(withMsw2Option).toMatch(/'onUnhandledRequest' does not exist/)
    },
  )
})
