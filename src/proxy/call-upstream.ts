import type { IncomingHttpHeaders } from 'node:http'
import type { Readable } from 'node:stream'
import type { Pool } from 'undici'
import { errors } from '../errors/index.js'

/** Largest upstream answer read whole to be checked; a larger one is refused (502) rather than held. */
export const MAX_UPSTREAM_BODY = 16 * 1024 * 1024

/** Where and how long: what the pool to the upstream is made with (`Upstream`). */
export interface UpstreamSettings {
  url: URL
  timeoutMs: number
  connectTimeoutMs: number
  /** Accept a certificate that does not verify (`--proxy-insecure`). */
  insecure: boolean
}

/**
 * Connections kept open to the upstream and reused across requests, with undici's `Pool`: its
 * request costs about 53 µs of CPU where `node:http` with a keep-alive agent costs 67
 * (`node bench/upstream-clients.mjs`), and `fetch` cost the proxy some 500 (#18's bench). Node ships undici as `fetch`; the package gives its plain API.
 * `timeoutMs` bounds the wait for the answer's head and every pause in its body; `connectTimeoutMs`
 * the opening of a new connection.
 * @note undici is imported here, on demand: loaded at start-up it added some 15 MiB to the RSS of
 * every mock, proxy mode or not (#19).
 */
export async function upstreamPool(settings: UpstreamSettings): Promise<Pool> {
  const { Pool } = await import('undici')
  return new Pool(settings.url.origin, {
    connections: 256,
    headersTimeout: settings.timeoutMs,
    bodyTimeout: settings.timeoutMs,
    connect: { timeout: settings.connectTimeoutMs, rejectUnauthorized: !settings.insecure },
  })
}

export interface UpstreamCall {
  method: string
  /** Path and query, under the upstream's own path. */
  path: string
  headers: Record<string, string>
  body: Uint8Array | undefined
}

/** The upstream's answer: its head, and its body as it comes. */
export interface UpstreamReply {
  status: number
  /** Lower-case names; a repeated header is a list (Set-Cookie). */
  headers: IncomingHttpHeaders
  body: Readable
}

/**
 * One request to the upstream, resolved with its head. Every wait ends: a new connection not open
 * within the connect timeout, or no head within `timeoutMs`, is a 504; a refused connection, a failed
 * DNS lookup or a certificate that does not verify is a 502 naming the cause. Redirects are answers,
 * not followed.
 */
export async function callUpstream(pool: Pool, settings: UpstreamSettings, call: UpstreamCall): Promise<UpstreamReply> {
  try {
    const answer = await pool.request({
      method: call.method as 'GET',
      path: call.path,
      headers: call.headers,
      body: call.body,
    })
    // A body cut short or refused ends the client's answer; it never throws past it, read or not.
    answer.body.on('error', () => undefined)
    return { status: answer.statusCode, headers: answer.headers as IncomingHttpHeaders, body: answer.body }
  } catch (error) {
    throw upstreamError(error, settings)
  }
}

/**
 * The body read whole, to be checked: past MAX_UPSTREAM_BODY it is cut and refused (502); a body
 * cut short is a 502, one that pauses longer than `timeoutMs` a 504.
 */
export function readUpstreamBody(body: Readable, settings: UpstreamSettings): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let length = 0
    body.on('data', (chunk: Buffer) => {
      length += chunk.byteLength
      if (length <= MAX_UPSTREAM_BODY) return void chunks.push(chunk)
      body.destroy()
      reject(errors.upstreamTooLarge(settings.url.origin, MAX_UPSTREAM_BODY))
    })
    body.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)))
    body.on('error', (error) => reject(upstreamError(error, settings, 'its answer was cut short')))
  })
}

/** undici's error as the mock's: what the client reads names the upstream and the cause. */
function upstreamError(error: unknown, settings: UpstreamSettings, otherwise?: string): Error {
  const { url } = settings
  const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return errors.upstreamConnectTimeout(url.origin, settings.connectTimeoutMs)
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT')
    return errors.upstreamTimeout(url.origin, settings.timeoutMs, code === 'UND_ERR_BODY_TIMEOUT')
  if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/.test(code))
    return errors.upstreamUnreachable(
      url.origin,
      `${code}: its certificate does not verify; --proxy-insecure accepts it`,
    )
  return errors.upstreamUnreachable(url.origin, otherwise ?? code)
}
