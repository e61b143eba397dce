import { readFile } from 'node:fs/promises'
import { bundlePlatform } from '../bundle/bundle-platform.js'
import { type MockBundle, checkBundle, checkNoNodeOnlyOption, optionsWithBundle } from '../bundle/mock-bundle.js'
import { startupErrors } from '../errors/index.js'
import { type HandlersOptions, type MockHandlers, createMockHandlers } from '../msw-handlers/create-mock-handlers.js'
import { nodePlatform } from './node-platform.js'

export interface NodeHandlersOptions extends HandlersOptions {
  /**
   * Serve a bundle (`plant-store-mock bundle`) instead of reading the description and fixtures from
   * disk: the bundle itself, or the path of its file. Its options apply, the ones given here winning.
   * @default none: the description and fixtures are read from disk
   */
  bundle?: MockBundle | string
}

/**
 * The mock as MSW request handlers, for `setupServer` in a test process (vitest, jest, jsdom): the
 * description and fixtures read from disk as `createApp` reads them (or from a bundle). Requests the
 * description does not know go on to MSW (`onUnhandledRequest`, msw 3's `onUnhandledFrame`) unless `strict`. Rejects with a `StartupError`.
 * @example
 * import { setupServer } from 'msw/node'
 *
 * const { handlers, mock } = await createHandlers({ baseUrl: 'http://localhost/api' })
 * const server = setupServer(...handlers)
 * server.listen({ onUnhandledRequest: 'error' })
 * mock.useScenario('error') // the next POST /api/plants answers 400
 */
export async function createHandlers(options: NodeHandlersOptions = {}): Promise<MockHandlers> {
  const { bundle: given, ...rest } = options
  if (given === undefined) return createMockHandlers(rest, nodePlatform)
  const bundle = typeof given === 'string' ? await readBundle(given) : checkBundle(given, 'the bundle given')
  checkNoNodeOnlyOption(rest, 'a mock served from a bundle')
  // The bundle's files; Node's hashing, multipart reading and CPU clock, and json-schema-faker loaded at start-up.
  const platform = { ...nodePlatform, ...bundlePlatform(bundle, 'a mock served from a bundle') }
  return createMockHandlers(optionsWithBundle(bundle, rest), {
    ...platform,
    crypto: nodePlatform.crypto,
    network: nodePlatform.network,
    loadsOnDemand: false,
  })
}

async function readBundle(path: string): Promise<MockBundle> {
  let value: unknown
  try {
    value = JSON.parse(await readFile(path, 'utf8'))
  } catch (error) {
    throw startupErrors.bundleUnreadable(path, (error as Error).message)
  }
  return checkBundle(value, path)
}
