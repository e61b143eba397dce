import type { AddressInfo } from 'node:net'
import type { Server, ServerResponse } from 'node:http'
import { createAdaptorServer } from '@hono/node-server'
import type { Hono } from 'hono'
import { StartupError } from './errors.js'

export interface ListeningServer {
  /** e.g. `http://127.0.0.1:4010` (the real port when 0 was asked for). */
  url: string
  port: number
  /** Stops accepting, lets in-flight requests finish, then resolves. */
  close(): Promise<void>
}

/** How long `close()` waits for in-flight requests before cutting connections. */
const CLOSE_GRACE_MS = 10_000

export function listen(app: Hono<any>, { port, host }: { port: number; host: string }): Promise<ListeningServer> {
  // Repeated headers are joined (`a, b`) as fetch's Headers does, not dropped as Node does by default
  // for Authorization or Content-Type: the request path reads Node's parsed headers.
  const server = createAdaptorServer({ fetch: app.fetch, serverOptions: { joinDuplicateHeaders: true } }) as Server
  // Responses not yet finished, so that close() can tell their clients the connection ends with them.
  const inFlight = new Set<ServerResponse>()
  server.on('request', (_request, response: ServerResponse) => {
    inFlight.add(response)
    response.once('close', () => inFlight.delete(response))
  })
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(describeListenError(error, host, port)))
    server.listen(port, host, () => {
      const { port: actualPort } = server.address() as AddressInfo
      const shownHost = host.includes(':') ? `[${host}]` : host
      resolve({ url: `http://${shownHost}:${actualPort}`, port: actualPort, close: () => closeGracefully(server, inFlight) })
    })
  })
}

function closeGracefully(server: Server, inFlight: ReadonlySet<ServerResponse>): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve()
    // Without this, a keep-alive connection whose request was in flight stays open after its response
    // until the keep-alive timeout (5 s), and close() waits for it. `Connection: close` ends it at once.
    for (const response of inFlight) if (!response.headersSent) response.shouldKeepAlive = false
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
  if (error.code === 'EADDRINUSE') return new StartupError(`Port ${port} on ${host} is already in use. Stop what holds it, or pick another port with --port (0 picks a free one).`)
  if (error.code === 'EACCES') return new StartupError(`Not allowed to listen on ${host}:${port}. Ports below 1024 need privileges; pick another with --port.`)
  if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND') return new StartupError(`Cannot listen on host ${host}: it is not an address of this machine.`)
  return new StartupError(`Cannot listen on ${host}:${port}: ${error.message}`)
}
