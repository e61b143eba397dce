/**
 * Stoplight Prism 5.14 beside the mock, for the oracle tests (`test/socket/prism-*.test.ts`): both
 * serve the same description on loopback, Prism from node_modules/.bin/prism as a child process.
 * `stopPrismAndMock()` ends both.
 */
import { fileURLToPath } from 'node:url'
import { type MockServer, startMockServer } from '../../src/index.js'
import { silentLogger } from '../../src/log.js'
import { cleanEnv, root, start, stopProcesses, waitForOutput } from './processes.js'

const prismBin = fileURLToPath(new URL('../../node_modules/.bin/prism', import.meta.url))

export interface PrismAndMock {
  prismUrl: string
  mock: MockServer
}

export async function startPrismAndMock(spec: string): Promise<PrismAndMock> {
  const prism = start(process.execPath, [prismBin, 'mock', spec, '-p', '0', '-h', '127.0.0.1'], {
    cwd: root,
    env: cleanEnv({ FORCE_COLOR: '0', NO_COLOR: '1' }),
  })
  const mock = await startMockServer({ spec, port: 0, logger: silentLogger })
  const [, url] = await waitForOutput(
    prism,
    /Prism is listening on (http:\/\/127\.0\.0\.1:\d+)/,
    30_000,
    'Prism to listen',
  )
  return { prismUrl: url!, mock }
}

export async function stopPrismAndMock(both: PrismAndMock | undefined): Promise<void> {
  await both?.mock.close()
  await stopProcesses()
}
