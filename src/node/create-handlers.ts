import { type HandlersOptions, type MockHandlers, createMockHandlers } from '../msw-handlers/create-mock-handlers.js'
import { nodePlatform } from './node-platform.js'

/**
 * The mock as MSW request handlers, for `setupServer` in a test process (vitest, jest, jsdom): the
 * description and fixtures read from disk as `createApp` reads them. Requests the description does
 * not know go on to MSW (`onUnhandledRequest`) unless `strict`. Rejects with a `StartupError`.
 * @example
 * import { setupServer } from 'msw/node'
 * import { createHandlers } from 'plant-store-mock/msw'
 *
 * const { handlers, mock } = await createHandlers({ baseUrl: 'http://localhost/api' })
 * const server = setupServer(...handlers)
 * server.listen({ onUnhandledRequest: 'error' })
 * mock.useScenario('error') // the next POST /api/plants answers 400
 */
export function createHandlers(options: HandlersOptions = {}): Promise<MockHandlers> {
  return createMockHandlers(options, nodePlatform)
}
