import type { Hono } from 'hono'
import { ADMIN_PREFIX, type MockOptions } from './config.js'
import { type MockControls, createControls } from './controls.js'
import { type Engine, createEngine } from './engine.js'
import { createApp as createPipeline } from './http/app.js'
import type { JournalEntry, JournalFilter } from './journal/journal.js'
import { type Logger, createConsoleLogger, silentLogger } from './log.js'
import { listen } from './server.js'

export type { MockOptions } from './config.js'
export { StartupError } from './errors.js'
export type { JournalEntry, JournalFilter } from './journal/journal.js'
export type { Logger, RequestLine } from './log.js'

export interface AppOptions extends MockOptions {
  /**
   * Where warnings and request lines go. A logger without `request` logs no requests.
   * @default silent for createApp(); for startMockServer(), the console, as `logFormat` and `quiet` say
   */
  logger?: Logger
}

/** Steering a running mock from a test: scenarios, the request journal, reset. */
export interface MockHandle {
  /** Switches the active scenario, for every client or for one `X-Mock-Session`. Throws on an unknown name. */
  useScenario(name: string, options?: { session?: string }): void
  /** The scenario a request of this session (or of no session) gets. */
  activeScenario(options?: { session?: string }): string
  /** Journaled requests, oldest first. Authorization and Cookie headers are redacted. */
  requests(filter?: JournalFilter): JournalEntry[]
  clearRequests(filter?: { session?: string }): void
  /** Scenario back to the start, sessions forgotten, journal emptied (or only one session's). */
  reset(options?: { session?: string }): void
}

/** A Hono app serving the mock, with its handle under `mock`. */
export type MockApp = Hono<any> & { mock: MockHandle }

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
export async function createApp(options: AppOptions = {}): Promise<MockApp> {
  const engine = await createEngine(options, options.logger ?? silentLogger)
  const { app } = assemble(engine)
  return app
}

export interface MockServer extends MockHandle {
  /** Base URL, e.g. `http://127.0.0.1:4010`. */
  url: string
  port: number
  /** The operations served, as `METHOD /path`. */
  operations: string[]
  /** Title and version of the description served. */
  title: string
  /** Stops accepting, ends hanging and delayed answers, waits for in-flight requests, then closes. */
  close(): Promise<void>
}

/**
 * Starts the mock on a real socket. `port: 0` picks a free port (read it from `url`).
 * @example
 * const mock = await startMockServer({ port: 0 })
 * mock.useScenario('error')
 * const res = await fetch(`${mock.url}/plants`, { method: 'POST', headers: { authorization: 'Bearer t' } })
 * expect(mock.requests({ operation: 'addPlant' })).toHaveLength(1)
 * await mock.close()
 */
export async function startMockServer(options: AppOptions = {}): Promise<MockServer> {
  const engine = await createEngine(options, options.logger ?? createConsoleLogger(options))
  const { app, closing } = assemble(engine)
  const server = await listen(app, engine.options)
  warnOfOpenAdmin(engine)
  const info = engine.spec.document.info ?? {}
  return {
    ...app.mock,
    url: server.url,
    port: server.port,
    operations: engine.operations.map((o) => `${o.method} ${o.path}`),
    title: `${info.title ?? 'API'} ${info.version ?? ''}`.trim(),
    close: () => {
      closing.abort()
      return server.close()
    },
  }
}

/** Anyone who can reach a non-loopback address could switch scenarios or read the journal (tokens are redacted, bodies are not). */
function warnOfOpenAdmin({ options, logger }: Engine): void {
  const loopback = /^(127\.|::1$|\[::1\]$|localhost$)/.test(options.host)
  if (options.admin && !options.adminToken && !loopback) {
    logger.warn(`the admin API (${ADMIN_PREFIX}) is open on ${options.host}: anyone who reaches this address can switch scenarios, reset the mock and read journaled requests and their bodies. Set --admin-token, or --no-admin.`)
  }
}

function assemble(engine: Engine): { app: MockApp; closing: AbortController } {
  const controls = createControls(engine.scenarios, engine.options.scenario, engine.options.journalSize)
  const closing = new AbortController()
  const app = Object.assign(createPipeline(engine, controls, closing.signal), { mock: handleOf(controls) })
  return { app, closing }
}

function handleOf(controls: MockControls): MockHandle {
  return {
    useScenario: (name, options = {}) => controls.useScenario(name, options.session),
    activeScenario: (options = {}) => controls.activeScenario(options.session).name,
    requests: (filter) => controls.journal.listRequests(filter),
    clearRequests: (filter) => controls.journal.clearRequests(filter),
    reset: (options = {}) => controls.reset(options.session),
  }
}
