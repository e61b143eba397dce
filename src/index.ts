import type { Hono } from 'hono'
import type { MockOptions } from './config.js'
import { createEngine } from './engine.js'
import { createApp as createHonoApp } from './http/app.js'
import { type Logger, consoleLogger, silentLogger } from './log.js'
import { listen } from './server.js'

export type { MockOptions } from './config.js'
export { StartupError } from './errors.js'
export type { Logger } from './log.js'

export interface AppOptions extends MockOptions {
  /** Where warnings go. @default silent: tests see only what they ask for */
  logger?: Logger
}

/**
 * Builds the mock as a Hono app, for socket-free tests with `app.request()`.
 * Rejects with a `StartupError` when the description, a fixture or an option is wrong.
 * @example
 * const app = await createApp({ tokens: ['secret'] })
 * const res = await app.request('/plants', {
 *   method: 'POST',
 *   headers: { authorization: 'Bearer secret', 'content-type': 'application/json' },
 *   body: JSON.stringify({ id: 1, name: 'Fern' }),
 * })
 * // res.status === 200
 */
export async function createApp(options: AppOptions = {}): Promise<Hono<any>> {
  return createHonoApp(await createEngine(options, options.logger ?? silentLogger))
}

export interface MockServer {
  /** Base URL, e.g. `http://127.0.0.1:4010`. */
  url: string
  port: number
  /** The operations served, as `METHOD /path`. */
  operations: string[]
  /** Title and version of the description served. */
  title: string
  /** Waits for in-flight requests, then closes. */
  close(): Promise<void>
}

/**
 * Starts the mock on a real socket. `port: 0` picks a free port (read it from `url`).
 * @example
 * const mock = await startMockServer({ port: 0 })
 * const res = await fetch(`${mock.url}/plants`, { method: 'POST', headers: { authorization: 'Bearer t' } })
 * await mock.close()
 */
export async function startMockServer(options: AppOptions = {}): Promise<MockServer> {
  const logger = options.logger ?? consoleLogger
  const engine = await createEngine(options, logger)
  const server = await listen(createHonoApp(engine), engine.options)
  const info = engine.spec.document.info ?? {}
  return {
    url: server.url,
    port: server.port,
    operations: engine.operations.map((o) => `${o.method} ${o.path}`),
    title: `${info.title ?? 'API'} ${info.version ?? ''}`.trim(),
    close: server.close,
  }
}
