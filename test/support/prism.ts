/**
 * Stoplight Prism 5.14 beside the mock, for the oracle tests (`test/socket/prism-*.test.ts`): both
 * serve the same description on loopback, Prism from node_modules/.bin/prism as a child process.
 * `prismBesideMock(spec)` starts both before the file's tests and stops them after.
 */
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll } from 'vitest'
import { type MockOptions, type MockServer, startMockServer } from '../../src/index.js'
import { silentLogger } from '../../src/common/log.js'
import { cleanEnv, root, start, stopProcesses, waitForOutput } from './processes.js'

const prismBin = fileURLToPath(new URL('../../node_modules/.bin/prism', import.meta.url))

export interface PrismAndMock {
  prismUrl: string
  mock: MockServer
}

/** The same setting for both, where a test needs one: Prism's flags, and the mock's options. */
export interface BesideOptions {
  prismArgs?: string[]
  mockOptions?: Omit<MockOptions, 'spec' | 'port' | 'logger'>
}

async function startPrismAndMock(spec: string, { prismArgs = [], mockOptions }: BesideOptions): Promise<PrismAndMock> {
  const prism = start(process.execPath, [prismBin, 'mock', spec, '-p', '0', '-h', '127.0.0.1', ...prismArgs], {
    cwd: root,
    env: cleanEnv({ FORCE_COLOR: '0', NO_COLOR: '1' }),
  })
  const mock = await startMockServer({ ...mockOptions, spec, port: 0, logger: silentLogger })
  const [, url] = await waitForOutput(
    prism,
    /Prism is listening on (http:\/\/127\.0\.0\.1:\d+)/,
    30_000,
    'Prism to listen',
  )
  return { prismUrl: url!, mock }
}

/** Both servers for the tests of one file: filled in before they run, stopped after. */
export function prismBesideMock(spec: string, options: BesideOptions = {}): PrismAndMock {
  const servers = {} as PrismAndMock
  beforeAll(async () => {
    Object.assign(servers, await startPrismAndMock(spec, options))
  }, 40_000)
  afterAll(async () => {
    await servers.mock?.close()
    await stopProcesses()
  })
  return servers
}
