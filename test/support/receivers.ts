/**
 * Receivers of callbacks and webhooks (#17), as a client's test runs them: `node:http` servers on
 * 127.0.0.1, port 0, that record each request with its raw body and answer it as the test says
 * (a status, a failure, or never). A test waits for what arrives with `next()`, never by sleeping.
 */
import { type Server, type ServerResponse, createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Received {
  method: string
  /** The path and query, as sent. */
  url: string
  headers: Record<string, string | string[] | undefined>
  /** The raw body, as the bytes came (what a signature is computed over). */
  body: string
}

/** How a receiver answers the request numbered `index` (from 0); it may leave `res` unanswered (a hang). */
export type Answer = (res: ServerResponse, request: Received, index: number) => void

export interface Receiver {
  /** `http://127.0.0.1:<port>` */
  origin: string
  /** The origin plus `/hook`. */
  url: string
  received: Received[]
  /** Resolves once `count` requests have arrived (default: one more than have now); rejects after `timeoutMs`. */
  next(count?: number, timeoutMs?: number): Promise<Received[]>
  /** Ends every connection (a hanging answer included) and stops listening. */
  close(): Promise<void>
}

/** Answers every request with `status` and an optional JSON body. */
export const answerWith =
  (status: number, body?: unknown): Answer =>
  (res) => {
    if (body === undefined) return void res.writeHead(status).end()
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
  }

/** Never answers: the request waits until the sender gives up or the receiver closes. */
export const hang: Answer = () => undefined

export async function startReceiver(answer: Answer = answerWith(200)): Promise<Receiver> {
  const received: Received[] = []
  const waiters: Array<{ count: number; resolve(): void }> = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const request = {
        method: req.method!,
        url: req.url!,
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      }
      received.push(request)
      answer(res, request, received.length - 1)
      for (const waiter of waiters.filter((w) => received.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1)
        waiter.resolve()
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    origin,
    url: `${origin}/hook`,
    received,
    next(count = received.length + 1, timeoutMs = 5000) {
      if (received.length >= count) return Promise.resolve(received.slice(0, count))
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1)
          reject(new Error(`${origin} received ${received.length} of ${count} requests within ${timeoutMs} ms`))
        }, timeoutMs)
        const waiter = {
          count,
          resolve: () => {
            clearTimeout(timer)
            resolve(received.slice(0, count))
          },
        }
        waiters.push(waiter)
      })
    },
    close() {
      server.closeAllConnections()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}

/** Starts receivers and closes them all at once, for an `afterEach`. */
export function createReceivers(): { start(answer?: Answer): Promise<Receiver>; closeAll(): Promise<void> } {
  const started: Receiver[] = []
  return {
    async start(answer) {
      const receiver = await startReceiver(answer)
      started.push(receiver)
      return receiver
    },
    async closeAll() {
      await Promise.all(started.splice(0).map((receiver) => receiver.close()))
    },
  }
}
