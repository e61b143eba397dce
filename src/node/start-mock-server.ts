import type { IncomingMessage, ServerResponse } from 'node:http'
import { type MockError, StartupError, errors } from '../errors/index.js'
import { ADMIN_PREFIX } from '../common/config.js'
import { createConsoleLogger } from './console-logger.js'
import { type Engine, settleDeferredExamples, createEngine } from '../engine/engine.js'
import { openRecords, openSharedRecords } from '../engine/open-records.js'
import { openStore } from './open-store.js'
import { handleOf } from '../admin/mock-handle.js'
import type { MockHandle } from '../admin/mock-handle.js'
import { type AppOptions, type Assembled, assemble, describeMock, openStoreOf } from '../http/create-app.js'
import { listen } from './server.js'
import { watchSources } from './watch.js'
import { type ReadSet, recordingReads } from '../common/files.js'
import type { Platform } from '../common/platform.js'
import { nodePlatform } from './node-platform.js'
import type { FetchHandler } from '../relay/relay-link.js'
import type { ServerHooks } from './server-hooks.js'
import { NodeConnection } from './node-connection.js'
import { joinReplicasOf } from './join-replicas.js'
import { offThreadGenerator } from './generation-thread.js'
import { fetchRemoteDescription, isRemoteDescription } from './remote-description.js'
import { OpenConnections, connectionCapsOf, readDescriptors } from './connection-caps.js'

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
export async function startMockServer(given: AppOptions = {}, hooks: ServerHooks = {}): Promise<MockServer> {
  const logger = given.logger ?? createConsoleLogger(given)
  // A description given by URL is fetched to a folder of its own, then read as any file (#36 §10).
  const remote = isRemoteDescription(given.spec) ? await fetchRemoteDescription(given.spec, logger) : undefined
  const options = remote ? { ...given, spec: remote.path } : given
  const closing = new AbortController()
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
  const shared = store ? (next: Engine) => openSharedRecords(next, store) : hooks.records
  // A worker of `--workers` without a store keeps no data of its own: its store reaches the primary's.
  const open: typeof openRecords = shared ? async () => undefined : openRecords
  let live: Assembled
  try {
    live = assemble(engine, closing.signal, undefined, await open(engine), shared, store)
  } catch (error) {
    await store?.close()
    throw error
  }
  const connections = new OpenConnections(
    connectionCapsOf(readDescriptors(), { proxy: live.engine.options.proxy !== undefined }),
  )
  const crowded = errors.tooManyConnections(connections.caps.described, connections.caps.descriptorLimit)
  const handle: FetchHandler = (request, env) => serveNodeRequest(live, request, env, connections, crowded)
  // One socket for the server's life; with --watch the app behind it is swapped, connections stay.
  const server = await (async () => {
    // With --store this process is one replica among those on the store: its admin API answers for all (#32).
    const served = store ? await joinReplicasOf(store, handle, () => live, logger) : handle
    return listen({ fetch: hooks.wrapFetch?.(served, () => live) ?? served }, { ...live.engine.options, connections })
  })().catch(async (error: unknown) => {
    await store?.close()
    throw error
  })
  warnOfOpenAdmin(live.engine)
  settleDeferredExamples(live.engine, closing.signal)
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
        live = assemble(next, closing.signal, live.state, opened, shared, store)
        settleDeferredExamples(live.engine, closing.signal)
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
  const watcher = read ? watchSources(read, reload, logger) : undefined
  // The server is asked for changes; a changed file is written over its copy, which the watcher sees.
  if (read) remote?.poll()
  return {
    ...handleOf(() => live),
    url: server.url,
    port: server.port,
    get operations() {
      return describeMock(live.engine).operations
    },
    get title() {
      return describeMock(live.engine).title
    },
    close: async () => {
      watcher?.close()
      closing.abort()
      await server.close()
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
 * A request as Node's server hands it over: one that came over a socket (`@hono/node-server` passes
 * Node's request and response in `env`) goes to the app with its connection, for the server's own lane
 * (`MockApps.serve`); one without (a worker's admin call relayed by the primary) goes through Hono.
 * Over a connection opened past the described API's cap, its requests are refused (`crowded`) and the
 * connection closed, so that descriptors come free (#34).
 */
function serveNodeRequest(
  live: Assembled,
  request: Request,
  env: unknown,
  connections: OpenConnections,
  crowded: MockError,
): Response | Promise<Response> {
  const node = env as { incoming?: IncomingMessage; outgoing?: ServerResponse } | undefined
  const incoming = node?.incoming
  if (!incoming) return live.app.fetch(request, env)
  const transport = { raw: request, connection: new NodeConnection(incoming) }
  if (!connections.refuses(incoming.socket)) return live.serve(transport)
  node.outgoing!.shouldKeepAlive = false
  return live.serveCrowded(transport, crowded)
}

/** How the server's engine is made: the description's examples are checked once it listens (`settleDeferredExamples`). */
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

/** Anyone who can reach a non-loopback address could switch scenarios or read the journal (tokens are redacted, bodies are not). */
function warnOfOpenAdmin({ options, logger }: Engine): void {
  const loopback = /^(127\.|::1$|\[::1\]$|localhost$)/.test(options.host)
  if (options.admin && !options.adminToken && !loopback) {
    logger.warn(
      `the admin API (${ADMIN_PREFIX}) is open on ${options.host}: anyone who reaches this address can switch scenarios, reset the mock and read journaled requests and their bodies. Set --admin-token, or --no-admin.`,
    )
  }
}
