import type { AddressInfo, Socket } from 'node:net'
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http'
import { getRequestListener } from '@hono/node-server'
import type { Hono } from 'hono'
import { startupErrors } from '../errors/index.js'
import { OpenConnections, connectionCapsOf, readDescriptors } from './connection-caps.js'

export interface ListeningServer {
  /** e.g. `http://127.0.0.1:4010` (the real port when 0 was asked for). */
  url: string
  port: number
  /** Stops accepting, lets in-flight requests finish, then resolves. */
  close(): Promise<void>
}

/**
 * How long `close()` waits for in-flight requests before cutting connections. Shorter than the 10 s
 * `docker stop` (and Kubernetes) wait between SIGTERM and SIGKILL: at 10 s the two raced, and a
 * container that lost was killed (exit 137) instead of closing its connections and exiting 0.
 * Delayed and hanging answers end at once on close, so only requests still arriving wait this long.
 */
export const CLOSE_GRACE_MS = 8_000

/**
 * Bounds on what one client may hold of the server (#5). A client that breaks one is cut off; the
 * others are served meanwhile.
 */
export interface ServerLimits {
  /** All request headers must arrive within this; a slow-loris connection gets 408 and is closed. @default 10_000 */
  headersTimeoutMs: number
  /** The whole request, body included, must arrive within this (the answer may take longer: delays, `hang`). @default 30_000 */
  requestTimeoutMs: number
  /** An idle keep-alive connection is closed after this. @default 5_000 */
  keepAliveTimeoutMs: number
  /** How often Node checks the two timeouts above, so a cut comes at most this late. @default 1_000 */
  checkIntervalMs: number
  /** Request line plus headers; larger gets 431. Node's default. @default 16_384 */
  maxHeaderBytes: number
}

export const SERVER_LIMITS: Readonly<ServerLimits> = Object.freeze({
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  checkIntervalMs: 1_000,
  maxHeaderBytes: 16_384,
})

/**
 * Takes a request off Node's server and answers it itself, writing Node's response (`ReloadingApp.take`),
 * or returns `false` to leave it to the app's `fetch`.
 */
export type TakeRequest = (incoming: IncomingMessage, outgoing: ServerResponse) => boolean

/**
 * Listens on `host:port`. Each request is offered to `take` first (the server's own lane, #34 §6);
 * what it leaves, or every request without it, goes to `app.fetch` through @hono/node-server's
 * listener. `connections` caps and counts the connections, so that they never take the descriptors
 * the process needs (#34); by default its caps come from the process's descriptor limit.
 */
export function listen(
  app: Pick<Hono<any>, 'fetch'>,
  {
    port,
    host,
    limits = SERVER_LIMITS,
    connections = new OpenConnections(connectionCapsOf(readDescriptors(), { proxy: false })),
    take,
  }: {
    port: number
    host: string
    limits?: Readonly<ServerLimits>
    connections?: OpenConnections
    take?: TakeRequest
  },
): Promise<ListeningServer> {
  const viaApp = getRequestListener(app.fetch, {
    // HTTP/1.0 does not require Host (Node requires it of HTTP/1.1 only): an HTTP/1.0 request
    // without it got 400 with no body (#12). It is read as naming the address the mock listens on.
    hostname: host.includes(':') ? `[${host}]` : host,
  })
  const answering = new Answering()
  const server = createServer(
    {
      // Repeated headers are joined (`a, b`) as fetch's Headers does, not dropped as Node does by default
      // for Authorization or Content-Type: the request path reads Node's parsed headers.
      joinDuplicateHeaders: true,
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // Node checks the two timeouts every 30 s by default: a slow-loris would then hold on up to 30 s longer.
      connectionsCheckingInterval: limits.checkIntervalMs,
      maxHeaderSize: limits.maxHeaderBytes,
    },
    (incoming, outgoing) => {
      answering.answer(incoming.socket, outgoing)
      if (!take?.(incoming, outgoing)) void viaApp(incoming, outgoing)
    },
  )
  connections.follow(server)
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(describeListenError(error, host, port)))
    server.listen(port, host, () => {
      const { port: actualPort } = server.address() as AddressInfo
      const shownHost = host.includes(':') ? `[${host}]` : host
      resolve({
        url: `http://${shownHost}:${actualPort}`,
        port: actualPort,
        close: () => closeGracefully(server, answering, connections.sockets),
      })
    })
  })
}

/** A connection's latest response, kept on its socket: the one whose head may still be unsent. */
const LATEST_RESPONSE = Symbol('latest response')
type AnsweringSocket = Socket & { [LATEST_RESPONSE]?: ServerResponse }

/**
 * Each open connection's latest response, so that `close()` can tell the clients of responses still
 * under way that the connection ends with them. A request pays one property store (a `Set` of
 * responses and a `close` listener on each cost some 3,700 instructions a request, 2.5 % of the valid
 * path, #34 §6); the connections themselves are `OpenConnections`'.
 */
class Answering {
  #closing = false

  /** A request's response, from now the latest on its connection; once the server closes, with `Connection: close`. */
  answer(socket: AnsweringSocket, response: ServerResponse): void {
    socket[LATEST_RESPONSE] = response
    if (this.#closing) response.shouldKeepAlive = false
  }

  /** Every response over `sockets` whose head is not sent yet, and every one to come, ends its connection. */
  closeConnections(sockets: Iterable<AnsweringSocket>): void {
    this.#closing = true
    for (const socket of sockets) {
      const response = socket[LATEST_RESPONSE]
      if (response !== undefined && !response.headersSent) response.shouldKeepAlive = false
    }
  }
}

function closeGracefully(server: Server, answering: Answering, sockets: Iterable<Socket>): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve()
    // Without this, a keep-alive connection whose request was in flight stays open after its response
    // until the keep-alive timeout (5 s), and close() waits for it. `Connection: close` ends it at once.
    answering.closeConnections(sockets)
    const force = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS).unref()
    server.close(() => {
      clearTimeout(force)
      resolve()
    })
    // Keep-alive connections with no request in flight would hold close() open.
    server.closeIdleConnections()
  })
}

function describeListenError(error: NodeJS.ErrnoException, host: string, port: number): Error {
  if (error.code === 'EADDRINUSE') return startupErrors.portInUse(host, port)
  if (error.code === 'EACCES') return startupErrors.portForbidden(host, port)
  if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND') return startupErrors.hostUnavailable(host)
  return startupErrors.listenFailed(host, port, error.message)
}
