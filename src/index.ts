import { StartupError } from './errors/index.js'
import type { Hono } from 'hono'
import { ADMIN_PREFIX, type MockOptions } from './common/config.js'
import { type RuntimeState, createRuntimeState } from './engine/runtime-state.js'
import { type Engine, settleDeferredExamples, createEngine } from './engine/engine.js'
import { type FetchHandler, createMockApps } from './http/app.js'
import { type Logger, createConsoleLogger, silentLogger } from './common/log.js'
import { listen } from './node/server.js'
import { watchSources } from './node/watch.js'
import { type OpenedRecords, openRecords } from './state/open-records.js'
import { type MockHandle, carryStubs, handleOf } from './admin/mock-handle.js'
import { createDeliverer } from './pipeline/send-events.js'
import type { ServerHooks } from './node/server-hooks.js'

export type { MockOptions } from './common/config.js'
/** What start-up rejects with: `code` names the problem (one of `startupErrorCodes`), `message` explains it. */
export { StartupError, type StartupErrorCode, startupErrorCodes } from './errors/index.js'
/** What `app.request()` rejects with when a scenario's fault (`reset`, `empty`, `hang`) sends no response; see its class. */
export { NetworkFault } from './pipeline/faults.js'
export type { JournalEntry, JournalResponse } from './journal/journal-entry.js'
export type { JournalFilter, StatusClass } from './journal/journal-filter.js'
export type { Logger, RequestLine } from './common/log.js'
export type { MockHandle, MockState, StubDefinition, StubHandle } from './admin/mock-handle.js'
export type { DeliveryFilter, DeliveryRecord, DeliveryWait } from './events/delivery.js'

export interface AppOptions extends MockOptions {
  /**
   * Where warnings and request lines go. A logger without `request` logs no requests.
   * @default silent for createApp(); for startMockServer(), the console, as `logFormat` and `quiet` say
   */
  logger?: Logger
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
  return assemble(engine, new AbortController().signal, undefined, await openRecords(engine)).app
}

/** How long `close()` (SIGTERM) lets callbacks and webhooks under way finish before cancelling them. */
const DELIVERY_GRACE_MS = 2000

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
export async function startMockServer(options: AppOptions = {}, hooks: ServerHooks = {}): Promise<MockServer> {
  const logger = options.logger ?? createConsoleLogger(options)
  const closing = new AbortController()
  // A worker of `--workers` keeps no data of its own: its store reaches the primary's.
  const open: typeof openRecords = hooks.records ? async () => undefined : openRecords
  // The description's examples are checked once the server listens (`deferExampleChecks`).
  const engine = await createEngine(options, logger, { deferExampleChecks: true })
  let live = assemble(engine, closing.signal, undefined, await open(engine), hooks.records)
  const handle = (request: Request, env: unknown) => live.serve(request, env)
  // One socket for the server's life; with --watch the app behind it is swapped, connections stay.
  const server = await listen({ fetch: hooks.wrapFetch?.(handle, () => live) ?? handle }, live.engine.options)
  warnOfOpenAdmin(live.engine)
  settleDeferredExamples(live.engine, closing.signal)
  let reloading = Promise.resolve()
  const reload = () => {
    reloading = reloading.then(async () => {
      try {
        const next = await createEngine(options, logger, { deferExampleChecks: true })
        const opened = await open(next, live.opened?.records)
        // The data goes on in the new version: the old writer's last change is written before the new one takes over.
        live.opened?.writer?.flushSync()
        live.opened?.writer?.close()
        live = assemble(next, closing.signal, live.state, opened, hooks.records)
        settleDeferredExamples(live.engine, closing.signal)
        logger.info(`reloaded ${describe(live.engine).title}: ${live.engine.operations.length} operation(s)`)
      } catch (error) {
        const code = error instanceof StartupError ? ` [${error.code}]` : ''
        logger.error(`${(error as Error).message} Still serving the last good version.${code}`)
      }
    })
  }
  const stopWatching = live.engine.options.watch ? watchSources(live.engine.options, reload, logger) : undefined
  return {
    ...handleOf(() => live),
    url: server.url,
    port: server.port,
    get operations() {
      return describe(live.engine).operations
    },
    get title() {
      return describe(live.engine).title
    },
    close: async () => {
      stopWatching?.()
      closing.abort()
      await server.close()
      // Callbacks and webhooks under way get a short grace, then are recorded as cancelled.
      await live.state.deliveries?.close(DELIVERY_GRACE_MS)
      await live.engine.upstream?.pool.destroy()
      // Recordings under way (`--record`) are on disk before close resolves, within the same grace.
      await settledWithin(live.engine.upstream?.recorder?.idle(), DELIVERY_GRACE_MS)
      // Every answered change is in the state file before close resolves (SIGTERM, SIGINT).
      await live.opened?.writer?.flush()
      live.opened?.writer?.close()
    },
  }
}

/** Waits for `work` at most `ms`. */
async function settledWithin(work: Promise<void> | undefined, ms: number): Promise<void> {
  if (!work) return
  let timer: NodeJS.Timeout | undefined
  await Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))])
  clearTimeout(timer)
}

function describe(engine: Engine): { title: string; operations: string[] } {
  const info = engine.spec.document.info ?? {}
  return {
    title: `${info.title ?? 'API'} ${info.version ?? ''}`.trim(),
    operations: engine.operations.map((o) => `${o.method} ${o.path}`),
  }
}

/** Anyone who can reach a non-loopback address could switch scenarios or read the journal (tokens are redacted, bodies are not). */
function warnOfOpenAdmin({ options, logger }: Engine): void {
  const loopback = /^(127\.|::1$|\[::1\]$|localhost$)/.test(options.host)
  if (options.admin && !options.adminToken && !loopback) {
    logger.warn(
      `the admin API (${ADMIN_PREFIX}) is open on ${options.host}: anyone who reaches this address can switch scenarios, reset the mock and read journaled requests and their bodies. Set --admin-token, or --no-admin.`,
    )
  }
}

interface Assembled {
  engine: Engine
  state: RuntimeState
  app: MockApp
  /** What the server calls for each request (`MockApps.serve`). */
  serve: FetchHandler
  /** The data and its state file writer (`--stateful`). */
  opened: OpenedRecords | undefined
}

/** An app and its state for one engine; a reload carries the journal and the active scenario over. */
function assemble(
  engine: Engine,
  closing: AbortSignal,
  previous: RuntimeState | undefined,
  opened: OpenedRecords | undefined,
  sharedRecords?: ServerHooks['records'],
): Assembled {
  const state = createRuntimeState(engine.scenarios, engine.options.scenario, engine.options.journalSize, {
    previous,
    redaction: engine.redaction,
    journalBytes: engine.options.journalBytes,
    records: sharedRecords?.(engine) ?? opened?.records,
    deliveries: previous?.deliveries ?? createDeliverer(engine),
  })
  carryStubs(previous, state, engine)
  const assembled = { engine, state, opened } as Assembled
  const { app, serve } = createMockApps(engine, state, closing)
  assembled.app = Object.assign(app, { mock: handleOf(() => assembled) })
  assembled.serve = serve
  return assembled
}
