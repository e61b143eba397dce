import { Agent as HttpAgent, type IncomingMessage, request as httpRequest } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import { errors } from '../errors.js'
import type { UpstreamAnswer } from './check-upstream-answer.js'

/** Largest upstream answer read to be checked; a larger one is refused (502) rather than held whole. */
export const MAX_UPSTREAM_BODY = 16 * 1024 * 1024

/**
 * Sockets kept open to the upstream, reused across requests: connection reuse is most of a proxy's
 * throughput. `insecure` (`--proxy-insecure`) accepts a certificate that does not verify, for a
 * staging server's self-signed one.
 */
export function upstreamAgent(url: URL, insecure: boolean): HttpAgent {
  const options = { keepAlive: true, maxSockets: 256, maxFreeSockets: 64 }
  return url.protocol === 'https:' ? new HttpsAgent({ ...options, rejectUnauthorized: !insecure }) : new HttpAgent(options)
}

export interface UpstreamCall {
  method: string
  headers: Record<string, string>
  body: Uint8Array | undefined
  agent: HttpAgent
  timeoutMs: number
}

/**
 * One request to the upstream with `node:http` and a keep-alive agent (fetch cost the proxy some 500
 * µs of CPU a request, #18's bench), its answer read whole up to MAX_UPSTREAM_BODY. Every wait ends:
 * the whole exchange has `timeoutMs` (504), a refused connection or a DNS failure is a 502 naming
 * the cause, a larger answer is cut and refused (502). Redirects are answers, not followed.
 */
export function callUpstream(target: URL, call: UpstreamCall): Promise<UpstreamAnswer> {
  return new Promise((resolve, reject) => {
    let timedOut = false
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest
    const request = send(target, { method: call.method, headers: call.headers, agent: call.agent }, (answer) =>
      readAnswer(answer, target, (error, result) => {
        clearTimeout(timer)
        if (error) reject(error)
        else resolve(result!)
      }),
    )
    const timer = setTimeout(() => {
      timedOut = true
      request.destroy()
    }, call.timeoutMs)
    request.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer)
      reject(
        timedOut
          ? errors.upstreamTimeout(target.origin, call.timeoutMs)
          : errors.upstreamUnreachable(target.origin, error.code ?? error.message),
      )
    })
    request.end(call.body)
  })
}

function readAnswer(
  answer: IncomingMessage,
  target: URL,
  done: (error: Error | undefined, result?: UpstreamAnswer) => void,
): void {
  const chunks: Buffer[] = []
  let length = 0
  answer.on('data', (chunk: Buffer) => {
    length += chunk.byteLength
    if (length > MAX_UPSTREAM_BODY) {
      answer.destroy()
      return done(errors.upstreamTooLarge(target.origin, MAX_UPSTREAM_BODY))
    }
    chunks.push(chunk)
  })
  answer.on('end', () =>
    done(undefined, { status: answer.statusCode ?? 502, headers: headersOf(answer), body: Buffer.concat(chunks) }),
  )
  // An answer cut short (the upstream closed mid-body) fails the request too; `done` is called once.
  answer.on('error', () => undefined)
}

function headersOf(answer: IncomingMessage): Headers {
  const headers = new Headers()
  const raw = answer.rawHeaders
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!)
  return headers
}
