/**
 * `plant-store-mock/msw` in a browser (the package's `browser` export condition): the mock as MSW
 * request handlers over a bundle (`plant-store-mock bundle`), for `setupWorker(...handlers)`. It
 * imports no `node:` module: the bundle's files, hashing in JavaScript, multipart read by fetch.
 */
import { bundlePlatform } from './bundle/bundle-platform.js'
import { type MockBundle, checkBundle, checkNoNodeOnlyOption, optionsWithBundle } from './bundle/mock-bundle.js'
import { startupErrors } from './errors/index.js'
import { type HandlersOptions, type MockHandlers, createMockHandlers } from './msw-handlers/create-mock-handlers.js'

export interface BrowserHandlersOptions extends HandlersOptions {
  /** The bundle, or the URL it is fetched from (`'/mock.bundle.json'`, before the worker starts). */
  bundle: MockBundle | string
}

/**
 * The mock as MSW request handlers in a browser, from a bundle. Rejects with a `StartupError`.
 * @example
 * import { setupWorker } from 'msw/browser'
 *
 * const { handlers, mock } = await createHandlers({ bundle: '/mock.bundle.json', baseUrl: '/api' })
 * await setupWorker(...handlers).start({ onUnhandledRequest: 'bypass' })
 */
export async function createHandlers(options: BrowserHandlersOptions): Promise<MockHandlers> {
  const { bundle: given, ...rest } = options
  if (given === undefined)
    throw startupErrors.needsNode('reading the description from disk', 'a browser (give a bundle)')
  const bundle = typeof given === 'string' ? await fetchBundle(given) : checkBundle(given, 'the bundle given')
  checkNoNodeOnlyOption(rest, 'a browser')
  return createMockHandlers(optionsWithBundle(bundle, rest), bundlePlatform(bundle))
}

async function fetchBundle(url: string): Promise<MockBundle> {
  let value: unknown
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(30_000) })
    if (!response.ok) throw new Error(`${url} answered ${response.status}`)
    value = await response.json()
  } catch (error) {
    throw startupErrors.bundleUnreadable(url, (error as Error).message)
  }
  return checkBundle(value, url)
}

export * from './msw-handlers/entry-exports.js'
