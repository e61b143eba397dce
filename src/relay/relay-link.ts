import { AsyncLocalStorage } from 'node:async_hooks'
import type { RelayCall } from './wire.js'

/** A server's request handler: the request, and the Node bindings `@hono/node-server` passes (`{ incoming, outgoing }`). */
export type FetchHandler = (request: Request, env?: unknown) => Response | Promise<Response>

/**
 * One process's way to the others that serve the mock with it: the primary of `--workers N`
 * (`cluster/primary-link.ts`), or the other replicas on one shared store (`redis/replicas.ts`).
 */
export interface RelayLink {
  /** Resolves with the answer; rejects with a 503 `MockError` when it does not come in time or the way is lost. */
  call(call: RelayCall, what: string): Promise<unknown>
}

/**
 * Set while a process applies an admin write another process received (`POST /__mock/reset` relayed
 * to every one): shared data (the primary's records, a shared store's records and rule counts) is
 * changed only by the process that received it.
 */
export const applyingEcho = new AsyncLocalStorage<boolean>()
