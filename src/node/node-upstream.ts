import { Readable } from 'node:stream'
import type { Pool } from 'undici'
import {
  MAX_UPSTREAM_BODY,
  type UpstreamCall,
  type UpstreamClient,
  type UpstreamReply,
  type UpstreamSettings,
} from '../common/network.js'
import type { ParsedHeaders } from '../common/request.js'
import { errors } from '../errors/index.js'

/**
 * Connections kept open to the upstream and reused across requests, with undici's `Pool`: its
 * request costs about 53 µs of CPU where `node:http` with a keep-alive agent costs 67
 * (`node bench/upstream-clients.mjs`), and `fetch` cost the proxy some 500 (#18's bench). Node ships undici as `fetch`; the package gives its plain API.
 * `timeoutMs` bounds the wait for the answer's head and every pause in its body; `connectTimeoutMs`
 * the opening of a new connection.
 * @note undici is imported here, on demand: loaded at start-up it added some 15 MiB to the RSS of
 * every mock, proxy mode or not (#19).
 */
export async function createUpstreamClient(settings: UpstreamSettings): Promise<UpstreamClient> {
  const { Pool } = await import('undici')
  const pool = new Pool(settings.url.origin, {
    connections: 256,
    headersTimeout: settings.timeoutMs,
    bodyTimeout: settings.timeoutMs,
    connect: { timeout: settings.connectTimeoutMs, rejectUnauthorized: !settings.insecure },
  })
  return { send: (call) => callUpstream(pool, settings, call), destroy: () => pool.destroy() }
}

/**
 * One request to the upstream, resolved with its head. Every wait ends: a new connection not open
 * within the connect timeout, or no head within `timeoutMs`, is a 504; a refused connection, a failed
 * DNS lookup or a certificate that does not verify is a 502 naming the cause. Redirects are answers,
 * not followed.
 */
async function callUpstream(pool: Pool, settings: UpstreamSettings, call: UpstreamCall): Promise<UpstreamReply> {
  try {
    const answer = await pool.request({
      method: call.method as 'GET',
      path: call.path,
      headers: call.headers,
      body: call.body,
    })
    // A body cut short or refused ends the client's answer; it never throws past it, read or not.
    answer.body.on('error', () => undefined)
    return new NodeUpstreamReply(answer.statusCode, answer.headers, answer.body, settings)
  } catch (error) {
    throw upstreamError(error, settings)
  }
}

/** The answer over undici: its body a Node stream. */
class NodeUpstreamReply implements UpstreamReply {
  constructor(
    readonly status: number,
    readonly headers: ParsedHeaders,
    private readonly body: Readable,
    private readonly settings: UpstreamSettings,
  ) {}

  readBody(): Promise<Uint8Array> {
    return readUpstreamBody(this.body, this.settings)
  }

  streamBody(): ReadableStream<Uint8Array> {
    return Readable.toWeb(this.body) as ReadableStream<Uint8Array>
  }

  private chunks?: ReadableStreamDefaultReader<Uint8Array>

  async readChunk(): Promise<Uint8Array | undefined> {
    this.chunks ??= this.streamBody().getReader()
    try {
      const { value, done } = await this.chunks.read()
      return done ? undefined : value
    } catch (error) {
      throw upstreamError(error, this.settings, 'its answer was cut short')
    }
  }

  discardBody(): void {
    this.body.resume()
  }

  destroyBody(): void {
    this.body.destroy()
  }
}

/**
 * The body read whole, to be checked: past MAX_UPSTREAM_BODY it is cut and refused (502); a body
 * cut short is a 502, one that pauses longer than `timeoutMs` a 504.
 */
function readUpstreamBody(body: Readable, settings: UpstreamSettings): Promise<Uint8Array> {
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
