import { errors } from '../errors/index.js'
import { ADMIN_PREFIX } from '../common/config.js'
import { createConsoleLogger } from './console-logger.js'
import type { Engine } from '../engine/engine.js'
import { handleOf } from '../admin/mock-handle.js'
import type { MockHandle } from '../admin/mock-handle.js'
import { type AppOptions, describeMock } from '../http/create-app.js'
import { type TakeRequest, listen } from './server.js'
import type { ServerHooks } from './server-hooks.js'
import { joinReplicasOf } from './join-replicas.js'
import { createReloadingApp } from './reloading-app.js'
import { OpenConnections, connectionCapsOf, readDescriptors } from './connection-caps.js'

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
  const mock = await createReloadingApp(options, logger, hooks.records)
  const connections = new OpenConnections(
    connectionCapsOf(readDescriptors(), { proxy: mock.live().engine.options.proxy !== undefined }),
  )
  const crowded = errors.tooManyConnections(connections.caps.described, connections.caps.descriptorLimit)
  const handle = mock.handler({ connections, crowded })
  const take = mock.take({ connections, crowded })
  // A worker holds every request until the primary says serve: meanwhile they go to its wrapped handler.
  const taken: TakeRequest = hooks.serving ? (incoming, outgoing) => hooks.serving!() && take(incoming, outgoing) : take
  // One socket for the server's life; with --watch the app behind it is swapped, connections stay.
  const server = await (async () => {
    // With --store this process is one replica among those on the store: its admin API answers for all (#32).
    const served = mock.store ? await joinReplicasOf(mock.store, handle, mock.live, logger) : handle
    return listen(
      { fetch: hooks.wrapFetch?.(served, mock.live) ?? served },
      { ...mock.live().engine.options, connections, take: taken },
    )
  })().catch(async (error: unknown) => {
    await mock.close()
    throw error
  })
  warnOfOpenAdmin(mock.live().engine)
  mock.begin()
  return {
    ...handleOf(mock.live),
    url: server.url,
    port: server.port,
    get operations() {
      return describeMock(mock.live().engine).operations
    },
    get title() {
      return describeMock(mock.live().engine).title
    },
    close: () => mock.close(server.close),
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
