import type { Hono } from 'hono'
import type { MockOptions } from '../common/config.js'
import type { Platform } from '../common/platform.js'
import { type Logger, silentLogger } from '../common/log.js'
import { type RuntimeState, createRuntimeState } from '../engine/runtime-state.js'
import { type Engine, createEngine } from '../engine/engine.js'
import { type OpenedRecords, openRecords, openSharedRecords, storePrefixOf } from '../engine/open-records.js'
import type { OpenSharedStore, SharedStore } from '../engine/shared-store.js'
import { type MockHandle, carryStubs, handleOf } from '../admin/mock-handle.js'
import { createDeliverer } from '../pipeline/send-events.js'
import { type MockApps, type ServeTransport, createMockApps } from './app.js'

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
 * Builds the mock as a Hono app on a platform (`createApp` gives it Node's). Rejects with a `StartupError`.
 * `openStore` opens the shared store `options.store` names; only called when it names one.
 */
export async function createMockApp(
  options: AppOptions,
  platform: Platform,
  openStore?: OpenSharedStore,
  joinReplicas?: JoinReplicas,
): Promise<MockApp> {
  const logger = options.logger ?? silentLogger
  const engine = await createEngine(options, logger, { platform })
  const store = await openStoreOf(engine, openStore)
  const signal = new AbortController().signal
  if (!store) return assemble(engine, signal, undefined, await openRecords(engine)).app
  const assembled = assemble(engine, signal, undefined, undefined, (next) => openSharedRecords(next, store), store)
  const { app } = assembled
  if (joinReplicas) {
    const own = app.fetch
    app.fetch = (await joinReplicas(
      store,
      (request, env) => own(request, env),
      () => assembled,
      logger,
    ).catch(async (error: unknown) => {
      await store.close()
      throw error
    })) as typeof app.fetch
  }
  return app
}

/**
 * Makes this app one replica among those on the shared store (`store`): its admin API, reached
 * through `app.fetch` and `app.request()`, answers for all of them (#32). The platform's; Node's
 * joins through Redis (`node/join-replicas.ts`).
 */
export type JoinReplicas = (
  store: SharedStore,
  handle: (request: Request, env?: unknown) => Response | Promise<Response>,
  live: () => Assembled,
  logger: Logger,
) => Promise<(request: Request, env?: unknown) => Response | Promise<Response>>

/** The shared store the options name (`--store`), opened; `undefined` for the in-memory default. */
export async function openStoreOf(
  engine: Engine,
  openStore: OpenSharedStore | undefined,
): Promise<SharedStore | undefined> {
  if (engine.options.store === undefined) return undefined
  if (!openStore) throw new Error('This platform has no shared store: leave out the store option.')
  return openStore(engine.options, storePrefixOf(engine), engine.logger)
}

/** The title and the operations of the description an engine serves. */
export function describeMock(engine: Engine): { title: string; operations: string[] } {
  const info = engine.spec.document.info ?? {}
  return {
    title: `${info.title ?? 'API'} ${info.version ?? ''}`.trim(),
    operations: engine.operations.map((o) => `${o.method} ${o.path}`),
  }
}

/** An app and its state, as assembled for one engine. */
export interface Assembled {
  engine: Engine
  state: RuntimeState
  app: MockApp
  /** What the server calls for each request that came over a connection (`MockApps.serve`). */
  serve: ServeTransport
  /** What the server calls instead while it has more connections open than the described API is answered on (`MockApps.serveCrowded`). */
  serveCrowded: MockApps['serveCrowded']
  /** The data and its state file writer (`--stateful`). */
  opened: OpenedRecords | undefined
  /** The shared store (`--store`), kept across reloads; `undefined` in memory. */
  store: SharedStore | undefined
}

/** Builds the app and its state for one engine; a reload carries the journal and the active scenario over. */
export function assemble(
  engine: Engine,
  closing: AbortSignal,
  previous: RuntimeState | undefined,
  opened: OpenedRecords | undefined,
  sharedRecords?: (engine: Engine) => RuntimeState['records'],
  store?: SharedStore,
): Assembled {
  const state = createRuntimeState(engine.scenarios, engine.options.scenario, engine.options.journalSize, {
    previous,
    redaction: engine.redaction,
    journalBytes: engine.options.journalBytes,
    records: sharedRecords?.(engine) ?? opened?.records,
    deliveries: previous?.deliveries ?? createDeliverer(engine),
    sharedCounts: store?.openCounts(),
  })
  carryStubs(previous, state, engine)
  const assembled = { engine, state, opened, store } as Assembled
  const { app, serve, serveCrowded } = createMockApps(engine, state, closing)
  assembled.app = Object.assign(app, { mock: handleOf(() => assembled) })
  assembled.serve = serve
  assembled.serveCrowded = serveCrowded
  return assembled
}
