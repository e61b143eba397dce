import { Agent as HttpAgent, type IncomingHttpHeaders, type IncomingMessage, request as httpRequest } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import type { Socket } from 'node:net'
import { errors } from '../errors.js'

/** Largest upstream answer read whole to be checked; a larger one is refused (502) rather than held. */
export const MAX_UPSTREAM_BODY = 16 * 1024 * 1024

/**
 * Sockets kept open to the upstream, reused across requests: connection reuse is most of a proxy's
 * throughput. `insecure` (`--proxy-insecure`) accepts a certificate that does not verify, for a
 * staging server's self-signed one.
 */
export function upstreamAgent(url: URL, insecure: boolean): HttpAgent {
  const options = { keepAlive: true, maxSockets: 256, maxFreeSockets: 64 }
  return url.protocol === 'https:'
    ? new HttpsAgent({ ...options, rejectUnauthorized: !insecure })
    : new HttpAgent(options)
}

export interface UpstreamCall {
  method: string
  /** Path and query, under the upstream's own path. */
  path: string
  headers: Record<string, string>
  body: Uint8Array | undefined
  /** Whether the answer's body is read whole (to be checked), from its status and headers; else it is streamed. */
  readWhole: (status: number, headers: IncomingHttpHeaders) => boolean
}

/** Where and how the upstream is called: its URL, agent and timeouts (`Upstream`). */
export interface UpstreamEndpoint {
  url: URL
  agent: HttpAgent
  timeoutMs: number
  connectTimeoutMs: number
}

/** The upstream's answer: its body read whole (`body`), or passed on as it comes (`stream`). */
export interface UpstreamReply {
  status: number
  /** As node parsed them: lower-case names, repeated ones joined with ", " (Set-Cookie: a list). */
  headers: IncomingHttpHeaders
  body?: Uint8Array
  stream?: IncomingMessage
}

/**
 * One request to the upstream with `node:http` and a keep-alive agent (fetch cost the proxy some 500
 * µs of CPU a request, #18's bench). Every wait ends: a new connection has `connectTimeoutMs` to open
 * and the whole exchange, a streamed body included, `timeoutMs` (504); a refused connection, a failed
 * DNS lookup or a certificate that does not verify is a 502 naming the cause; an answer read whole is
 * cut past MAX_UPSTREAM_BODY and refused (502). Redirects are answers, not followed.
 */
export function callUpstream(endpoint: UpstreamEndpoint, call: UpstreamCall): Promise<UpstreamReply> {
  const { url, agent } = endpoint
  return new Promise((resolve, reject) => {
    let late: 'connect' | 'answer' | undefined
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest
    const request = send(
      {
        protocol: url.protocol,
        hostname: url.hostname,
        port: url.port,
        path: call.path,
        method: call.method,
        headers: call.headers,
        agent,
      },
      (answer) => {
        const status = answer.statusCode ?? 502
        const { headers } = answer
        let whole: boolean
        try {
          whole = call.readWhole(status, headers)
        } catch (error) {
          // Called from node's own event, not the promise: a throw here would end the process.
          clearTimeout(timer)
          answer.destroy()
          return reject(error as Error)
        }
        if (!whole) {
          answer.once('close', () => clearTimeout(timer))
          // A stream cut short or refused ends the client's answer; it never throws past it.
          answer.on('error', () => undefined)
          return resolve({ status, headers, stream: answer })
        }
        readWhole(answer, url, (error, body) => {
          clearTimeout(timer)
          if (error) reject(late ? lateError() : error)
          else resolve({ status, headers, body })
        })
      },
    )
    const giveUp = (why: 'connect' | 'answer') => () => {
      late = why
      request.destroy()
    }
    const timer = setTimeout(giveUp('answer'), endpoint.timeoutMs)
    request.once('socket', (socket: Socket) => {
      if (!socket.connecting) return
      const connectTimer = setTimeout(giveUp('connect'), endpoint.connectTimeoutMs)
      socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer))
      socket.once('close', () => clearTimeout(connectTimer))
    })
    const lateError = () =>
      late === 'connect'
        ? errors.upstreamConnectTimeout(url.origin, endpoint.connectTimeoutMs)
        : errors.upstreamTimeout(url.origin, endpoint.timeoutMs)
    request.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer)
      reject(late ? lateError() : errors.upstreamUnreachable(url.origin, causeOf(error)))
    })
    request.end(call.body)
  })
}

/** The cause of a failed call as the client should read it; a certificate problem says how to accept it. */
function causeOf(error: NodeJS.ErrnoException): string {
  const code = error.code ?? error.message
  return /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/.test(code)
    ? `${code}: its certificate does not verify; --proxy-insecure accepts it`
    : code
}

function readWhole(
  answer: IncomingMessage,
  url: URL,
  done: (error: Error | undefined, body?: Uint8Array) => void,
): void {
  const chunks: Buffer[] = []
  let length = 0
  let settled = false
  const settle = (error: Error | undefined, body?: Uint8Array) => {
    if (settled) return
    settled = true
    done(error, body)
  }
  answer.on('data', (chunk: Buffer) => {
    length += chunk.byteLength
    if (length > MAX_UPSTREAM_BODY) {
      answer.destroy()
      return settle(errors.upstreamTooLarge(url.origin, MAX_UPSTREAM_BODY))
    }
    chunks.push(chunk)
  })
  answer.on('end', () => settle(undefined, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)))
  // The upstream closed the connection mid-body.
  answer.on('error', () => settle(errors.upstreamUnreachable(url.origin, 'its answer was cut short')))
}
