/**
 * A hand-driven HTTP/1.1 client over a raw TCP socket, for what fetch cannot do: send headers a byte
 * at a time, stream a body forever, or watch the server close the connection (#5); and the answer a
 * node:http request gets.
 */
import type http from 'node:http'
import net from 'node:net'

export interface RawConnection {
  socket: net.Socket
  /** Everything the server sent so far, as latin1 text. */
  received(): string
  /** Resolves when the server has closed the connection (or it failed), with the time it happened. */
  closed: Promise<number>
  isClosed(): boolean
}

export async function connect(port: number, host = '127.0.0.1'): Promise<RawConnection> {
  const socket = net.connect(port, host)
  let text = ''
  let closed = false
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')))
  // A server that cuts a client off may do so while it writes: EPIPE / ECONNRESET are expected here.
  socket.on('error', () => {})
  const closedAt = new Promise<number>((resolve) =>
    socket.once('close', () => ((closed = true), resolve(performance.now()))),
  )
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve)
    socket.once('error', reject)
  })
  return { socket, received: () => text, closed: closedAt, isClosed: () => closed }
}

export { within } from './processes.js'

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** The status of the first response the server sent, e.g. 413; undefined before one arrived. */
export function statusOf(text: string): number | undefined {
  const match = /^HTTP\/1\.1 (\d{3})/.exec(text)
  return match ? Number(match[1]) : undefined
}

/**
 * Writes an endless chunked body in 64 KiB chunks, respecting back-pressure, until the server
 * closes the connection, stops reading (no drain for `stallMs`), `maxBytes` have been written, or
 * `ms` have passed. Resolves the bytes the socket accepted and why it stopped.
 */
export async function streamChunked(
  connection: RawConnection,
  { maxBytes, ms, stallMs = 1000 }: { maxBytes: number; ms: number; stallMs?: number },
): Promise<{ sent: number; stoppedBy: 'closed' | 'stalled' | 'maxBytes' | 'time' }> {
  const payload = Buffer.alloc(64 * 1024, 0x20)
  const chunk = Buffer.concat([Buffer.from(`${payload.length.toString(16)}\r\n`), payload, Buffer.from('\r\n')])
  const deadline = performance.now() + ms
  let sent = 0
  for (;;) {
    if (connection.isClosed()) return { sent, stoppedBy: 'closed' }
    if (sent >= maxBytes) return { sent, stoppedBy: 'maxBytes' }
    if (performance.now() > deadline) return { sent, stoppedBy: 'time' }
    const flushed = connection.socket.write(chunk)
    sent += payload.length
    if (flushed) continue
    const drained = await new Promise<boolean>((resolve) => {
      const done = (value: boolean) => {
        clearTimeout(timer)
        connection.socket.off('drain', onDrain).off('close', onClose)
        resolve(value)
      }
      const onDrain = () => done(true)
      const onClose = () => done(true)
      const timer = setTimeout(() => done(false), stallMs)
      connection.socket.once('drain', onDrain).once('close', onClose)
    })
    if (!drained) return { sent, stoppedBy: connection.isClosed() ? 'closed' : 'stalled' }
  }
}

/** The status and text body a node:http request gets. */
export function responseOf(req: http.ClientRequest): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    req.on('response', (res) => {
      let body = ''
      res
        .setEncoding('utf8')
        .on('data', (chunk: string) => (body += chunk))
        .on('end', () => resolve({ status: res.statusCode!, body }))
    })
    req.on('error', reject)
  })
}
