import type { IncomingMessage, ServerResponse } from 'node:http'
import { type MockError, StartupError } from '../errors/index.js'
import type { Logger } from '../common/log.js'
import { type Engine, settleDeferredExamples, createEngine } from '../engine/engine.js'
import { openRecords, openSharedRecords } from '../engine/open-records.js'
import type { SharedStore } from '../engine/shared-store.js'
import { type AppOptions, type Assembled, assemble, describeMock, openStoreOf } from '../http/create-app.js'
import { type ReadSet, recordingReads } from '../common/files.js'
import type { Platform } from '../common/platform.js'
import type { FetchHandler } from '../relay/relay-link.js'
import { openStore } from './open-store.js'
import { type SourceWatcher, watchSources } from './watch.js'
import { nodePlatform } from './node-platform.js'
import type { ServerHooks } from './server-hooks.js'
import { NodeConnection } from './node-connection.js'
import { fetchRemoteDescription, isRemoteDescription } from './remote-description.js'
import { offThreadGenerator } from './generation-thread.js'
import type { OpenConnections } from './connection-caps.js'
import { responseOf } from '../http/response-of.js'
import { NetworkFault } from '../pipeline/faults.js'
import type { Reply } from '../pipeline/reply.js'
import type { Transport } from '../pipeline/request-data.js'
import type { TakeRequest } from './server.js'
import { writeBroken, writeReply } from './write-reply.js'

/** How long `close()` (SIGTERM) lets callbacks and webhooks under way finish before cancelling them. */
const DELIVERY_GRACE_MS = 2000

/**
 * The mock as Node serves it, on a socket of its own (`startMockServer`) or on another server's (the
 * Vite plugin): loaded once, and with `watch` loaded again after each change to what the load read,
 * the scenario, stubs, journal and data carried over to the new version.
 */
export interface ReloadingApp {
  /** The app in service; a reload swaps it. */
  live(): Assembled
  /**
   * What Node's server (`@hono/node-server`'s listener) calls for each request: the app in service
   * answers it. The same function for the server's whole life; the connections stay across reloads.
   * `caps`: the mock's own server counts its connections, and refuses the described API over those
   * opened past its cap (#34); on another's server (Vite's) that server owns its connections.
   */
  handler(caps?: ConnectionCaps): FetchHandler
  /**
   * The mock's own server's lane (#34 §6): a request to the described API is answered straight off
   * Node's request, its reply written to Node's response (`writeReply`), with no fetch Request or
   * Response made and no @hono/node-server in between. It returns `false` for a request the app must
   * answer (the admin API, CORS, a target the fetch lane's URL would change): the server hands that
   * one to `handler`. `caps` as for `handler`.
   */
  take(caps?: ConnectionCaps): TakeRequest
  /** The shared store (`--store`), opened once and kept across reloads; `undefined` in memory. */
  store: SharedStore | undefined
  /**
   * Call once the mock is reachable: the description's examples are checked (put off so that the port
   * opens sooner) and, with `watch`, the files the load read are followed from then on.
   */
  begin(): void
  /**
   * Stops following the files and ends hanging and delayed answers, waits for `drain` (the server's own
   * close), then gives callbacks, webhooks and recordings under way a short grace, writes the state
   * file and closes the store.
   */
  close(drain?: () => Promise<void>): Promise<void>
}

/** The connections of the mock's own server, and what one opened past the cap is answered (#34). */
export interface ConnectionCaps {
  connections: OpenConnections
  crowded: MockError
}

/**
 * Loads the mock for Node (`options.watch` decides whether it reloads). `records` gives the data of a
 * stateful engine instead of one opened here (a worker of `--workers`). Rejects with a `StartupError`.
 */
export async function createReloadingApp(
  given: AppOptions,
  logger: Logger,
  records?: ServerHooks['records'],
): Promise<ReloadingApp> {
  // A description given by URL is fetched to a folder of its own, then read as any file (#36 §10).
  const remote = isRemoteDescription(given.spec) ? await fetchRemoteDescription(given.spec, logger) : undefined
  const options = remote ? { ...given, spec: remote.path } : given
  const closing = new AbortController()
  /**
   * The signal a version of the app listens to for the server's closing (held answers, journal
   * streams): one of its own that follows `closing`, so that a version's listeners go when a reload
   * replaces it and the version is let go, rather than pile up on the long-lived one (Node warned
   * after ten reloads, #35). Its held answers still wait out their time across a reload.
   */
  const versionSignal = () => AbortSignal.any([closing.signal])
  let replaced = new AbortController()
  /** What stops the live version's example checks: the server closing, or a reload replacing it. */
  const examplesSignal = () => AbortSignal.any([closing.signal, replaced.signal])
  // Under --watch, what each load reads is told, to be watched (#35).
  // A server makes costly bodies off its event loop (#34): `generation-thread.ts`.
  const platform: Platform = { ...nodePlatform, offThread: offThreadGenerator }
  const load = (read?: ReadSet) =>
    createEngine(
      options,
      logger,
      loading(read ? { ...platform, files: recordingReads(platform.files, read) } : platform),
    )
  let read: ReadSet | undefined = options.watch ? { files: new Set(), folders: new Set() } : undefined
  const engine = await load(read).catch(async (error: unknown) => {
    await remote?.close()
    throw error
  })
  // With `--store` the data is in the store, for every replica and worker (a reload keeps the connection).
  const store = await openStoreOf(engine, openStore)
  const shared = store ? (next: Engine) => openSharedRecords(next, store) : records
  // A worker of `--workers` without a store keeps no data of its own: its store reaches the primary's.
  const open: typeof openRecords = shared ? async () => undefined : openRecords
  let live: Assembled
  try {
    live = assemble(engine, versionSignal(), undefined, await open(engine), shared, store)
  } catch (error) {
    await store?.close()
    await remote?.close()
    throw error
  }
  let watcher: SourceWatcher | undefined
  let reloading = Promise.resolve()
  const reload = (changed: string) => {
    reloading = reloading.then(async () => {
      // What this load reads; a load that fails still follows what it tried to read (a $ref's file not there yet).
      const attempt: ReadSet = { files: new Set(), folders: new Set() }
      try {
        const next = await load(attempt)
        const opened = await open(next, live.opened?.records)
        // The data goes on in the new version: the old writer's last change is written before the new one takes over.
        live.opened?.writer?.flushSync()
        live.opened?.writer?.close()
        void live.engine.errorContext.offThread?.close()
        live = assemble(next, versionSignal(), live.state, opened, shared, store)
        // The replaced version's examples are no longer worth checking.
        replaced.abort()
        replaced = new AbortController()
        settleDeferredExamples(live.engine, examplesSignal())
        read = attempt
        watcher?.follow(attempt)
        logger.info(
          `reloaded ${describeMock(live.engine).title} after a change to ${remote?.urlOf(changed) ?? changed}: ${live.engine.operations.length} operation(s)`,
        )
      } catch (error) {
        const code = error instanceof StartupError ? ` [${error.code}]` : ''
        logger.error(`${(error as Error).message} Still serving the last good version.${code}`)
        watcher?.follow({
          files: new Set([...read!.files, ...attempt.files]),
          folders: new Set([...read!.folders, ...attempt.folders]),
        })
      }
    })
  }
  return {
    live: () => live,
    handler(caps) {
      if (!caps) return (request, env) => serveNodeRequest(live, request, env)
      const { connections, crowded } = caps
      return (request, env) => serveNodeRequest(live, request, env, connections, crowded)
    },
    take(caps) {
      if (!caps) return (incoming, outgoing) => takeNodeRequest(live, incoming, outgoing)
      const { connections, crowded } = caps
      return (incoming, outgoing) => takeNodeRequest(live, incoming, outgoing, connections, crowded)
    },
    store,
    begin() {
      settleDeferredExamples(live.engine, examplesSignal())
      if (!read) return
      watcher = watchSources(read, reload, logger)
      // The server is asked for changes; a changed file is written over its copy, which the watcher sees.
      remote?.poll()
    },
    async close(drain) {
      watcher?.close()
      closing.abort()
      await drain?.()
      // Callbacks and webhooks under way get a short grace, then are recorded as cancelled.
      await live.state.deliveries?.close(DELIVERY_GRACE_MS)
      await live.engine.upstream?.client.destroy()
      await live.engine.errorContext.offThread?.close()
      // Recordings under way (`--record`) are on disk before close resolves, within the same grace.
      await settledWithin(live.engine.upstream?.recorder?.idle(), DELIVERY_GRACE_MS)
      // Every answered change is in the state file before close resolves (SIGTERM, SIGINT).
      await live.opened?.writer?.flush()
      live.opened?.writer?.close()
      await store?.close()
      await remote?.close()
    },
  }
}

/**
 * A request as @hono/node-server's listener hands it over: one that came over a socket (Node's request
 * and response in `env`) goes to the pipeline with its connection where it is the described API's
 * (`MockApps.serve`), else to the app; one without (a worker's admin call relayed by the primary) goes
 * through Hono. Over a connection opened past the described API's cap, its requests are refused
 * (`crowded`) and the connection closed, so that descriptors come free (#34).
 */
function serveNodeRequest(
  live: Assembled,
  request: Request,
  env: unknown,
  connections?: OpenConnections,
  crowded?: MockError,
): Response | Promise<Response> {
  const node = env as { incoming?: IncomingMessage; outgoing?: ServerResponse } | undefined
  const incoming = node?.incoming
  if (!incoming) return live.app.fetch(request, env)
  const transport = { raw: request, connection: new NodeConnection(incoming) }
  const reply = replyOver(live, transport, incoming, node.outgoing!, connections, crowded)
  if (reply === undefined) return live.app.fetch(request, transport)
  return reply instanceof Promise ? reply.then(responseOf) : responseOf(reply)
}

/**
 * The server's own lane (`ReloadingApp.take`): the request's connection is all the pipeline gets, and
 * its reply is written as it is. `false` where the app must answer (`MockApps.serve` says so).
 */
function takeNodeRequest(
  live: Assembled,
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  connections?: OpenConnections,
  crowded?: MockError,
): boolean {
  const reply = replyOver(live, { connection: new NodeConnection(incoming) }, incoming, outgoing, connections, crowded)
  if (reply === undefined) return false
  if (!(reply instanceof Promise)) writeReply(outgoing, reply)
  else
    reply.then(
      (answered: Reply) => writeReply(outgoing, answered),
      (error: unknown) => writeFailed(outgoing, error),
    )
  return true
}

/**
 * The pipeline's reply to a request that came over a connection, both lanes': over one opened past
 * the described API's cap, the refusal (`crowded`), and the connection ends with it. `undefined`
 * where the app must answer.
 */
function replyOver(
  live: Assembled,
  transport: Transport,
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  connections: OpenConnections | undefined,
  crowded: MockError | undefined,
): Reply | Promise<Reply> | undefined {
  if (connections?.refuses(incoming.socket) !== true) return live.serve(transport)
  outgoing.shouldKeepAlive = false
  return live.serveCrowded(transport, crowded!)
}

/** A network fault has reset or closed the connection already; anything else is a 500 where the head is not sent yet. */
function writeFailed(outgoing: ServerResponse, error: unknown): void {
  if (error instanceof NetworkFault) return void outgoing.destroy()
  writeBroken(outgoing, error)
}

/** How Node's engine is made: the description's examples are checked once it is reachable (`settleDeferredExamples`). */
function loading(platform: Platform) {
  return { deferExampleChecks: true, platform }
}

/** Waits for `work` at most `ms`. */
async function settledWithin(work: Promise<void> | undefined, ms: number): Promise<void> {
  if (!work) return
  let timer: NodeJS.Timeout | undefined
  await Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))])
  clearTimeout(timer)
}
