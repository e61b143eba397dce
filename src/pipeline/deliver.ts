import type { Transport } from './request-data.js'
import { errors } from '../errors/index.js'
import { answerWithFault, drawDelay, waitBeforeAnswering } from './faults.js'
import type { Exchange, PipelineDeps } from './exchange.js'
import { renderFailure } from './failure.js'
import { answerSent, recordExchange } from './record.js'
import type { Reply } from './reply.js'

/** Delayed or hanging answers held at once, at most; beyond, 503 with Retry-After (#12). */
export const MAX_HELD_ANSWERS = 128

/**
 * 7. Deliver: the delay (Prefer's, once the request got to step 5; else the scenario's, else
 * `--delay`), then the scenario's fault; held answers are capped. Then 8, the journal.
 * @note Not async: an answer that is neither delayed nor faulted (nearly all) is returned as it is,
 * without the extra promise an async function adds to every request.
 */
export function deliverStep(
  transport: Transport,
  exchange: Exchange,
  deps: PipelineDeps,
  response: Reply,
): Reply | Promise<Reply> {
  const { decision } = exchange
  const delay = exchange.prefer?.delay ?? drawDelay(decision?.delay ?? deps.engine.options.delay)
  const fault = decision?.fault
  const holds = delay > 0 || fault === 'hang'
  if (holds && deps.held.count >= MAX_HELD_ANSWERS) {
    // Each held answer holds a connection (and a file descriptor): beyond the cap, every other client would be locked out.
    exchange.error = errors.tooManyHeld(MAX_HELD_ANSWERS)
    response = renderFailure(exchange.error, exchange, deps)
  } else if (holds) {
    return holdThenAnswer(transport, exchange, deps, response, delay, true)
  } else if (fault) {
    return holdThenAnswer(transport, exchange, deps, response, 0, false)
  }
  recordExchange(exchange, deps, response.status)
  return response
}

/** The delay, then the fault; a held answer (`counted`: a delay or a hang) counts against `MAX_HELD_ANSWERS` while it waits. */
async function holdThenAnswer(
  transport: Transport,
  exchange: Exchange,
  deps: PipelineDeps,
  response: Reply,
  delay: number,
  counted: boolean,
): Promise<Reply> {
  if (counted) deps.held.count++
  try {
    if (delay > 0) await waitBeforeAnswering(delay, transport, deps.held)
    const fault = exchange.decision?.fault
    if (fault) {
      try {
        response = await answerWithFault(fault, response, transport, deps.held)
        if (fault === 'malformed') exchange.answer = answerSent(response)
      } catch (error) {
        // A network fault sent no response: it is journaled as status 0, then goes on out of the app.
        recordExchange(exchange, deps, 0)
        throw error
      }
    }
    recordExchange(exchange, deps, response.status)
    return response
  } finally {
    if (counted) deps.held.count--
  }
}
