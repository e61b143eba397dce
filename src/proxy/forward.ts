import type { Context } from 'hono'
import type { CompiledOperation } from '../compile-operation.js'
import { errors } from '../errors.js'
import { incomingOf } from '../http/request-data.js'
import { readBody } from '../http/read-body.js'
import { joinHeader } from '../internal/join-header.js'
import type { Exchange, PipelineDeps } from '../pipeline/exchange.js'
import type { HeaderSource } from '../request.js'
import { VIOLATIONS_HEADER, renderViolationsHeader } from '../validation/violations-header.js'
import { upstreamViolations } from './check-upstream-answer.js'
import type { Upstream } from './upstream.js'
import { callUpstream } from './call-upstream.js'

/** Headers of one connection, not of the message: never forwarded either way (RFC 9110 §7.6.1), nor what fetch sets itself. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
])
/** The answer's own connection headers, and its length, which the server sets for the bytes it sends. */
const NOT_PASSED_BACK = HOP_BY_HOP
const NULL_BODY = new Set([101, 204, 205, 304])

/**
 * Proxy mode: the request, valid or answered past its violations, goes to the upstream as it came
 * (method, path under the upstream's own path, query, headers but hop-by-hop ones, the raw body), and
 * the upstream's answer comes back as it came, checked against the operation's declared responses:
 * what breaks them is sent in `X-Mock-Violations` and journaled, or with `--errors` answered 502.
 * A refused connection or a DNS failure is a 502, a timeout a 504, each naming the upstream. With
 * `--fallback`, an upstream 404 or 501 answers `undefined`: the mock answers instead.
 */
export async function proxyStep(
  c: Context,
  exchange: Exchange,
  deps: PipelineDeps,
  operation: CompiledOperation,
  upstream: Upstream,
): Promise<Response | undefined> {
  const { request } = exchange
  const target = new URL(upstream.url)
  target.pathname = `${upstream.url.pathname.replace(/\/$/, '')}${request.path}`
  target.search = request.rawQuery ? `?${request.rawQuery}` : ''
  exchange.proxied = target.href
  exchange.proxy = 'forwarded to the upstream'
  const body =
    exchange.body ??
    (request.method === 'GET' || request.method === 'HEAD'
      ? undefined
      : await readBody(c.req.raw, incomingOf(c), deps.engine.options.maxBodyBytes))
  const answer = await callUpstream(target, {
    method: request.method,
    headers: forwardedHeaders(request.headerSource, request.header('host')),
    body: body && body.byteLength > 0 ? body : undefined,
    agent: upstream.agent,
    timeoutMs: upstream.timeoutMs,
  })
  if (upstream.fallback && (answer.status === 404 || answer.status === 501)) {
    exchange.proxy = `fell back to the mock: the upstream answered ${answer.status}`
    return undefined
  }
  const described = deps.engine.rules.targets[operation.index]?.description.responses ?? []
  const violations = upstreamViolations(operation.responses, described, answer)
  if (violations.length) {
    exchange.responseViolations = violations
    if (deps.engine.options.errors) throw errors.upstreamBrokeContract(target.origin, operation.id, violations)
  }
  const headers: Record<string, string> = {}
  for (const [name, value] of answer.headers) if (!NOT_PASSED_BACK.has(name)) headers[name] = value
  if (violations.length || exchange.violations)
    headers[VIOLATIONS_HEADER] = renderViolationsHeader(exchange.violations, exchange.responseViolations)
  const passed = NULL_BODY.has(answer.status) || request.method === 'HEAD' ? null : answer.body
  exchange.answer = { status: answer.status, headers, body: passed && new TextDecoder().decode(passed) }
  return new Response(passed, { status: answer.status, headers })
}

/**
 * The request's own headers but those of its connection, and where it came from (`X-Forwarded-*`).
 * `Accept-Encoding` is left out: the answer is checked, so it is asked for uncompressed.
 */
function forwardedHeaders(source: HeaderSource, host: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {}
  const entries = source instanceof Headers ? source.entries() : Object.entries(source)
  for (const [name, value] of entries) {
    const lower = name.toLowerCase()
    if (value === undefined || HOP_BY_HOP.has(lower) || lower === 'accept-encoding') continue
    headers[lower] = joinHeader(value)
  }
  if (host) headers['x-forwarded-host'] = host
  headers['x-forwarded-proto'] = 'http'
  return headers
}
