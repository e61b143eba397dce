import type { Violation } from '../errors/index.js'
import type { DeliveryKind, DeliveryReasonCode, DeliveryRecord } from './delivery-journal.js'
import type { PlatformCrypto } from '../common/platform.js'
import { concatBytes, utf8Bytes, utf8Text } from '../internal/bytes.js'

/** What to send, as the callback or webhook builder made it. */
export interface DeliveryRequest {
  kind: DeliveryKind
  /** The callback's name (its key under `callbacks`) or the webhook's name (`/plant/webhook`). */
  name: string
  /** The operation whose answer triggered it, if any. */
  operation?: string
  session?: string
  url: string
  method: string
  /** Lower-case names; content-type included when there is a body. */
  headers: Record<string, string>
  body?: string
  /** How the receiver's answer breaks what the callback/webhook declares; [] when it conforms. Called once, when delivered. */
  checkAnswer(status: number, headers: Headers, body: string): Violation[]
}

/** Bytes of a body the journal keeps. */
export const KEPT_BODY_BYTES = 64 * 1024
/** Bytes of an answer read at most; the rest is never read and the stream is cancelled. */
export const READ_BODY_BYTES = 1024 * 1024

/** What one request needs, built once per delivery and sent as is by every attempt. */
export interface OutgoingRequest {
  url: string
  method: string
  headers: Record<string, string>
  body?: string
}

/** An answer, whatever its status; the body up to `READ_BODY_BYTES`. */
export interface ReceivedAnswer {
  status: number
  headers: Headers
  body: string
  /** The answer was longer than `READ_BODY_BYTES`; `body` is its beginning. */
  oversize: boolean
}

/** Why an attempt got no answer. */
export interface AttemptFailure {
  code: Extract<DeliveryReasonCode, 'delivery_timeout' | 'delivery_network_error' | 'delivery_closed'>
  error: string
}

/** Why a delivery is not sent, or ended as it did. */
export interface Refusal {
  code: DeliveryReasonCode
  reason: string
}

/** Where targets may be: the deliverer's options that say it. */
export interface TargetRules {
  allowedHosts?: readonly string[]
  refuse?: (url: URL) => string | undefined
}

/** Headers the connection owns: fetch refuses or rewrites them, so a description's value would only break the send. */
const CONNECTION_HEADERS = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
  'expect',
  'te',
  'trailer',
])

/** What every attempt of delivery `id` sends: the request's headers, lower-cased, and the deliverer's own. */
export function createOutgoing(
  request: DeliveryRequest,
  id: number,
  sign: ((body: string) => string) | undefined,
): OutgoingRequest {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(request.headers)) {
    if (!CONNECTION_HEADERS.has(name.toLowerCase())) headers[name.toLowerCase()] = value
  }
  headers['user-agent'] = 'plant-store-mock'
  headers['x-mock-delivery'] = String(id)
  if (sign) headers['x-hub-signature-256'] = sign(request.body ?? '')
  return { url: request.url, method: request.method, headers, body: request.body }
}

/** Why the target is not to be sent to, or undefined. */
export function checkTarget(outgoing: OutgoingRequest, { allowedHosts, refuse }: TargetRules): Refusal | undefined {
  if (!URL.canParse(outgoing.url))
    return { code: 'delivery_bad_url', reason: `"${outgoing.url}" is not an absolute URL.` }
  const url = new URL(outgoing.url)
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return {
      code: 'delivery_unsupported_scheme',
      reason: `Only http: and https: targets are sent to, not ${url.protocol}`,
    }
  }
  if (allowedHosts && !allowedHosts.some((host) => unbracketed(host.toLowerCase()) === unbracketed(url.hostname))) {
    const allowed = allowedHosts.join(', ') || 'none'
    return { code: 'delivery_host_not_allowed', reason: `${url.hostname} is not an allowed host (${allowed}).` }
  }
  const refusal = askCaller(refuse, url)
  if (refusal) return { code: 'delivery_refused_by_caller', reason: refusal }
  try {
    // fetch would reject every attempt (a body on GET, a bad header value, credentials in the URL): refuse now.
    new Request(url, { method: outgoing.method, headers: outgoing.headers, body: outgoing.body })
  } catch (error) {
    return { code: 'delivery_bad_request', reason: `fetch cannot send it: ${messageOf(error)}` }
  }
  return undefined
}

/** The caller's own refusal; one that throws refuses too, rather than send what it could not judge. */
function askCaller(refuse: TargetRules['refuse'], url: URL): string | undefined {
  try {
    return refuse?.(url)
  } catch (error) {
    return `The refuse() check failed: ${messageOf(error)}`
  }
}

/** `[::1]` and `::1` name the same host: URL.hostname keeps the brackets, a flag's value may not. */
function unbracketed(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
}

/** GitHub's convention (`X-Hub-Signature-256`), which receivers already know how to check. */
export function signBody(crypto: Pick<PlatformCrypto, 'hmacSha256Hex'>, secret: string, body: string): string {
  return `sha256=${crypto.hmacSha256Hex(secret, body)}`
}

/**
 * Sends once and reads the answer, bounded in time and size. Never rejects: a fault of the receiver
 * or the network comes back as a failure. `cancel` is the delivery's own signal (aborted when the
 * deliverer closes): tying each attempt to one long-lived close signal with `AbortSignal.any` would
 * keep a listener per attempt on it for the mock's life on Node 20 (#12).
 */
export async function attemptDelivery(
  request: OutgoingRequest,
  timeoutMs: number,
  cancel: AbortSignal,
): Promise<ReceivedAnswer | AttemptFailure> {
  try {
    const response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      // A redirect is the receiver's answer; following it would send the payload somewhere unchecked.
      redirect: 'manual',
      signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), cancel]),
    })
    const { bytes, complete } = await readBounded(response.body, READ_BODY_BYTES)
    return { status: response.status, headers: response.headers, body: utf8Text(bytes), oversize: !complete }
  } catch (error) {
    return describeFailure(error, timeoutMs)
  }
}

/** Waits between retries; ends early, timer cleared, when the delivery is cancelled. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve()
    const done = () => {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal.addEventListener('abort', done, { once: true })
  })
}

export function isAnswer(result: ReceivedAnswer | AttemptFailure): result is ReceivedAnswer {
  return 'status' in result
}

/** Reads at most `limit` bytes; beyond it the stream is cancelled so the receiver stops sending. */
async function readBounded(
  body: ReadableStream<Uint8Array> | null,
  limit: number,
): Promise<{ bytes: Uint8Array; complete: boolean }> {
  if (!body) return { bytes: new Uint8Array(0), complete: true }
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  // Bounded: each chunk adds bytes up to `limit`, and the attempt's signal ends a stalled read.
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return { bytes: concatBytes(chunks, size), complete: true }
    const room = limit - size
    chunks.push(value.subarray(0, room))
    size += Math.min(room, value.byteLength)
    if (value.byteLength > room) {
      reader.cancel().catch(() => undefined)
      return { bytes: concatBytes(chunks, size), complete: false }
    }
  }
}

/** What the checker says of a delivered answer; an over-long answer breaks it, and so does a checker that throws. */
export function checkReceivedAnswer(request: DeliveryRequest, answer: ReceivedAnswer): Violation[] {
  const violations: Violation[] = []
  if (answer.oversize) {
    const message = `The answer is longer than ${READ_BODY_BYTES} bytes; only its beginning was read.`
    violations.push({ path: 'body', message })
  }
  try {
    const found = request.checkAnswer(answer.status, answer.headers, answer.body)
    violations.push(...found.map(({ path, message }) => ({ path, message })))
  } catch (error) {
    violations.push({ path: '', message: `The answer could not be checked: ${messageOf(error)}` })
  }
  return violations
}

/** The answer as the journal keeps it. */
export function recordedAnswer(answer: ReceivedAnswer): DeliveryRecord['response'] {
  const headers = Object.fromEntries(answer.headers)
  return { status: answer.status, headers, ...(answer.body !== '' && keptBody(answer.body)) }
}

/** The first `KEPT_BODY_BYTES` of a body, for the journal. */
export function keptBody(body: string): { body: string; bodyTruncated?: true } {
  if (body.length <= KEPT_BODY_BYTES / 3) return { body }
  const bytes = utf8Bytes(body)
  if (bytes.byteLength <= KEPT_BODY_BYTES) return { body }
  return { body: utf8Text(bytes.subarray(0, KEPT_BODY_BYTES)), bodyTruncated: true }
}

/** Undici hides the cause (`ECONNREFUSED`...) behind `TypeError: fetch failed`; the cause is what helps. */
function describeFailure(error: unknown, timeoutMs: number): AttemptFailure {
  const name = error instanceof Error || error instanceof DOMException ? error.name : ''
  if (name === 'TimeoutError') return { code: 'delivery_timeout', error: `no answer within ${timeoutMs} ms` }
  if (name === 'AbortError') return { code: 'delivery_closed', error: 'cancelled: the deliverer closed' }
  const cause = error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined
  const code = typeof cause?.code === 'string' ? cause.code : undefined
  const text = typeof cause?.message === 'string' && cause.message !== '' ? cause.message : messageOf(error)
  return { code: 'delivery_network_error', error: code && !text.includes(code) ? `${code}: ${text}` : text }
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
