import { type AppOptions, type MockApp, createMockApp } from '../http/create-app.js'
import { nodePlatform } from './node-platform.js'
import { openStore } from './open-store.js'
import { joinReplicasOf } from './join-replicas.js'

/**
 * Builds the mock as a Hono app, for socket-free tests with `app.request()`.
 * Rejects with a `StartupError` when the description, a fixture or an option is wrong.
 * @example
 * const app = await createApp({ tokens: ['secret'] })
 * app.mock.useScenario('error')
 * const res = await app.request('/plants', {
 *   method: 'POST',
 *   headers: { authorization: 'Bearer secret', 'content-type': 'application/json' },
 *   body: JSON.stringify({ id: 1, name: 'Fern' }),
 * })
 * // res.status === 400; app.mock.requests()[0].status === 400
 */
export function createApp(options: AppOptions = {}): Promise<MockApp> {
  return createMockApp(options, nodePlatform, openStore, joinReplicasOf)
}
