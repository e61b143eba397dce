import type { Delay } from '../common/config.js'
import type { Fault } from '../rules/rule.js'
import type { Connection, Transport } from './request-data.js'
import type { HeldAnswers } from './held-answers.js'
import { type Reply, replyText } from './reply.js'

/** A uniformly drawn wait within the range, in milliseconds. */
export function drawDelay({ min, max }: Delay): number {
  return min === max ? min : min + Math.floor(Math.random() * (max - min + 1))
}

/**
 * Waits, unless the client has gone or the server is closing. Its listeners are removed when the
 * wait ends: `AbortSignal.any` on the server's long-lived signal kept about 51 bytes per delayed
 * answer for the server's life on Node 20 (#12).
 */
export function waitBeforeAnswering(ms: number, transport: Transport, held: HeldAnswers): Promise<void> {
  if (ms <= 0) return Promise.resolve()
  // The fetch `Request`'s signal where there is one; on the server's own lane, the connection's close.
  const { raw, connection } = transport
  return raw ? untilAborted(held, raw.signal, undefined, ms) : untilAborted(held, undefined, connection, ms)
}

/**
 * A fault that leaves no response at all. It travels out of the app as a rejection, as a network
 * error makes `fetch` reject: under `app.request()` the promise rejects with it, and over a socket
 * the connection is already reset or closed when it is thrown.
 * @example
 * const app = await createApp({ scenario: 'flaky-network' }) // addPlant: { fault: reset }
 * const sent = app.request('/plants', { method: 'POST', headers: { authorization: 'Bearer t' } })
 * await expect(sent).rejects.toBeInstanceOf(NetworkFault) // and .fault === 'reset'
 */
export class NetworkFault extends Error {
  constructor(readonly fault: Exclude<Fault, 'malformed'>) {
    super(`The mock broke this answer on purpose (fault: ${fault}).`)
    this.name = 'NetworkFault'
  }
}

/**
 * Breaks an answer the way a real network or server does, so a client's retry and error paths
 * can be tested:
 * - `reset`: the connection is reset (the client sees ECONNRESET);
 * - `empty`: the connection closes before any byte of a response;
 * - `malformed`: the declared status and headers, then half of the JSON body;
 * - `hang`: no answer until the client gives up (or the server closes).
 * All but `malformed` throw a `NetworkFault` once the connection is dealt with.
 */
export async function answerWithFault(
  fault: Fault,
  reply: Reply,
  transport: Transport,
  held: HeldAnswers,
): Promise<Reply> {
  const { connection } = transport
  if (fault === 'malformed') {
    const body = await replyText(reply)
    const { 'content-length': _length, ...headers } = reply.headers ?? {}
    return { status: reply.status, headers, body: body.slice(0, Math.max(1, Math.floor(body.length / 2))) || '{' }
  }
  if (fault === 'hang') await untilAborted(held, transport.raw?.signal, connection)
  if (fault === 'reset') connection?.reset()
  else connection?.close()
  throw new NetworkFault(fault)
}

/**
 * Resolves when the server closes, the client's signal aborts, the connection closes, or `ms` pass;
 * every listener and timer is removed then.
 */
function untilAborted(
  held: HeldAnswers,
  client: AbortSignal | undefined,
  connection: Connection | undefined,
  ms?: number,
): Promise<void> {
  return new Promise((resolve) => {
    if (held.closed || client?.aborted || connection?.closed) return resolve()
    let timer: NodeJS.Timeout | undefined
    const done = () => {
      held.forget(done)
      client?.removeEventListener('abort', done)
      connection?.offClosed(done)
      clearTimeout(timer)
      resolve()
    }
    held.onClose(done)
    client?.addEventListener('abort', done, { once: true })
    connection?.onceClosed(done)
    if (ms !== undefined) timer = setTimeout(done, ms)
  })
}
