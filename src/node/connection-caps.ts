import { readFileSync, readdirSync } from 'node:fs'
import type { Server } from 'node:http'
import type { Socket } from 'node:net'

/** The process's descriptors, read at start: its limit (the soft one, which Node raised to the hard one) and how many are open. */
export interface Descriptors {
  limit: number
  open: number
}

/**
 * How many connections the server takes, derived from the descriptor limit (#34): under `ulimit -n 160`,
 * 190 delayed answers took every descriptor, a fresh client's health check failed and `POST /plants`
 * got ECONNRESET.
 */
export interface ConnectionCaps {
  /** Open connections at most: Node closes any beyond at accept (the client sees the connection closed). */
  connections: number
  /**
   * A connection opened while more than this many are open is answered 503 with `Retry-After` when it
   * asks the described API, and closed; the admin API is still answered on it, up to `connections`.
   */
  described: number
  /** The descriptor limit the caps come from, when it could be read. */
  descriptorLimit?: number
}

/** Connections at most whatever the limit, and where it cannot be read (not Linux): as before #34. */
export const MAX_CONNECTIONS = 1_000
/**
 * Descriptors kept back beyond those open at start, the larger of this and a tenth of the limit: for the
 * state file, fixtures read again under `--watch`, recordings, Redis, callbacks and webhooks under way.
 */
export const DESCRIPTOR_HEADROOM = 64
/** Connections kept for the admin API (at most a quarter of them), so that `/__mock/health` answers when the described API's are taken. */
export const ADMIN_CONNECTIONS = 16
/** The caps never go below this, however low the limit: the mock then runs out of descriptors as any process would. */
const LEAST_CONNECTIONS = 4

/** The descriptor limit and those open, from `/proc/self` (Linux); `undefined` elsewhere. Read once, at start: about 0.1 ms. */
export function readDescriptors(): Descriptors | undefined {
  try {
    const limits = readFileSync('/proc/self/limits', 'latin1')
    const soft = /^Max open files\s+(\d+|unlimited)/m.exec(limits)?.[1]
    if (soft === undefined || soft === 'unlimited') return undefined
    return { limit: Number(soft), open: readdirSync('/proc/self/fd').length }
  } catch {
    return undefined
  }
}

/**
 * The caps for a process with these descriptors. In proxy mode a request to the described API may hold
 * a connection to the upstream too, so each counts twice.
 */
export function connectionCapsOf(descriptors: Descriptors | undefined, { proxy }: { proxy: boolean }): ConnectionCaps {
  if (!descriptors) return capsOf(MAX_CONNECTIONS)
  const { limit, open } = descriptors
  const free = limit - open - Math.max(DESCRIPTOR_HEADROOM, Math.floor(limit / 10))
  const connections = Math.min(MAX_CONNECTIONS, Math.max(LEAST_CONNECTIONS, proxy ? Math.floor(free / 2) : free))
  return { ...capsOf(connections), descriptorLimit: limit }
}

function capsOf(connections: number): ConnectionCaps {
  return { connections, described: connections - Math.min(ADMIN_CONNECTIONS, Math.floor(connections / 4)) }
}

/**
 * The server's connections open now, counted as they open and close, against its caps. A connection
 * opened past the described API's cap is marked: its requests to the described API are refused while
 * the server is that crowded. Those opened before are served: in a burst, the first connections get
 * their answers, and the later ones a refusal, rather than every one a refusal.
 */
export class OpenConnections {
  readonly #open = new Set<Socket>()
  readonly #crowded = new WeakSet<Socket>()

  constructor(readonly caps: ConnectionCaps) {}

  /** Whether a request over `socket` to the described API is refused now. One comparison while under the cap. */
  refuses(socket: Socket): boolean {
    return this.#open.size > this.caps.described && this.#crowded.has(socket)
  }

  /** How many are open now. */
  get count(): number {
    return this.#open.size
  }

  /** Those open now (`close()` tells the clients of their responses under way that the connection ends). */
  get sockets(): ReadonlySet<Socket> {
    return this.#open
  }

  /** Caps the server's connections, and counts them from now on. */
  follow(server: Server): void {
    server.maxConnections = this.caps.connections
    server.on('connection', (socket: Socket) => {
      this.#open.add(socket)
      if (this.#open.size > this.caps.described) this.#crowded.add(socket)
      socket.once('close', () => this.#open.delete(socket))
    })
  }
}
