import type { CompiledOperation } from '../engine/compile-operation.js'
import { errors } from '../errors/index.js'
import type { Connection, Transport } from './request-data.js'
import { readBody } from './read-body.js'
import { joinHeader } from '../internal/join-header.js'
import { fetchHeadersOf } from '../internal/fetch-headers.js'
import type { Exchange, PipelineDeps } from './exchange.js'
import type { HeaderSource, ParsedHeaders } from '../common/request.js'
import { VIOLATIONS_HEADER, renderViolationsHeader } from '../validation/violations-header.js'
import { checkUpstreamHead, upstreamBodyViolations } from '../proxy/check-upstream-answer.js'
import type { Upstream } from '../engine/upstream.js'
import type { UpstreamReply } from '../common/network.js'
import type { StreamRecord } from '../journal/journal-entry.js'
import { streamedBody } from './proxy-stream.js'
import type { Reply } from './reply.js'

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
 * Proxy mode still answers from the mock where the test says so, and says why: a status or example
 * picked (by `Prefer`, a scenario or a stub), a stub's or rule's own body, any stub, a forced error.
 * A rule that only delays or breaks the answer (a fault) applies to the upstream's answer.
 */
function mockAnswers({ decision }: Exchange, recording: boolean): string | undefined {
  const { preferences, forced, inline, rule, forcedBy } = decision!
  if (rule?.stub !== undefined) return rule.label
  if (forced !== undefined || inline !== undefined || forcedBy !== undefined)
    return `${forcedBy ?? 'the scenario'} picks the answer`
  // While recording, `Prefer: example=NAME` names the recording of the upstream's answer instead.
  if (preferences.code !== undefined || (preferences.example !== undefined && !recording))
    return 'the request picks the answer (Prefer)'
  return undefined
}

const MOCK_ONLY = 'the operation is mocked (--mock-only, or not in --proxy-only)'

/**
 * Proxy mode: the request, valid or answered past its violations, goes to the upstream as it came
 * (method, path under the upstream's own path, query, headers but hop-by-hop ones, the raw body), and
 * the upstream's answer comes back as it came, checked against the operation's declared responses:
 * what breaks them is sent in `X-Mock-Violations` and journaled, or with `--errors` answered 502.
 * Only a body the check must see (JSON with a schema) is read whole; an answer of a sequential media
 * type passes item by item, each judged as it goes (`streamedBody`, #31 §2); any other is streamed through.
 * A refused connection or a DNS failure is a 502, a timeout a 504, each naming the upstream.
 * `undefined` where the mock answers instead: the test says so (`mockAnswers`), the operation is
 * mocked, or with `--fallback` the upstream answered 404 or 501. With `--record`, an answer that
 * keeps the contract is handed to the recorder.
 */
export async function proxyStep(
  transport: Transport,
  exchange: Exchange,
  deps: PipelineDeps,
  operation: CompiledOperation,
  upstream: Upstream,
): Promise<Reply | undefined> {
  const mockedBecause =
    mockAnswers(exchange, upstream.recorder !== undefined) ??
    (upstream.mocked.has(operation.index) ? MOCK_ONLY : undefined)
  if (mockedBecause) {
    exchange.proxy = `answered by the mock: ${mockedBecause}`
    return undefined
  }
  const { request } = exchange
  const { url } = upstream
  const path = `${url.pathname.length > 1 ? url.pathname.replace(/\/$/, '') : ''}${request.path}${request.rawQuery ? `?${request.rawQuery}` : ''}`
  exchange.proxied = `${url.origin}${path}`
  exchange.proxy = 'forwarded to the upstream'
  const body =
    exchange.body ??
    (request.method === 'GET' || request.method === 'HEAD'
      ? undefined
      : await readBody(transport, deps.engine.options.maxBodyBytes))
  const reply = await upstream.client.send({
    method: request.method,
    path,
    headers: forwardedHeaders(request.headerSource, request.header('host')),
    body: body && body.byteLength > 0 ? body : undefined,
  })
  if (upstream.fallback && (reply.status === 404 || reply.status === 501)) {
    reply.discardBody()
    exchange.proxy = `fell back to the mock: the upstream answered ${reply.status}`
    return undefined
  }
  return passOn(exchange, deps, operation, upstream, { reply, sent: body, connection: transport.connection })
}

/**
 * The upstream's answer, checked against the operation's declared responses (its head at once, its
 * body where the check must see it, a stream's items as they pass), recorded (`--record`) when it
 * keeps them, and passed on: what breaks them in `X-Mock-Violations` and the journal, or with
 * `--errors` a 502 (a stream's broken item, once its head is sent: an error item that ends it).
 */
async function passOn(
  exchange: Exchange,
  deps: PipelineDeps,
  operation: CompiledOperation,
  upstream: Upstream,
  { reply, sent, connection }: { reply: UpstreamReply; sent: Uint8Array | undefined; connection?: Connection },
): Promise<Reply> {
  const { request } = exchange
  const { recorder } = upstream
  const { status } = reply
  const described = upstream.descriptions[operation.index]!.responses
  const bodiless = request.method === 'HEAD' || NULL_BODY.has(status)
  const head = checkUpstreamHead(operation.responses, described, status, reply.headers, bodiless)
  const { stream } = head
  // A recording needs the body of an answer that keeps the contract, whatever its schema; a stream's is kept as it passes.
  const readWhole =
    head.body !== undefined || (recorder !== undefined && !head.violations.length && !bodiless && !stream)
  const whole = readWhole ? await reply.readBody() : undefined
  const violations =
    head.body && whole ? [...head.violations, ...upstreamBodyViolations(head.body, whole)] : head.violations
  if (recorder) {
    if (violations.length) recorder.passOver(operation, status, violations)
    else if (whole)
      recorder.record(operation, request, sent, { status, headers: fetchHeadersOf(reply.headers), body: whole })
  }
  if (violations.length) {
    exchange.responseViolations = violations
    if (deps.engine.options.errors) {
      reply.destroyBody()
      throw errors.upstreamBrokeContract(upstream.url.origin, operation.id, violations)
    }
  }
  const headers = passedBack(reply.headers)
  if (violations.length || exchange.violations)
    headers[VIOLATIONS_HEADER] = renderViolationsHeader(exchange.violations, exchange.responseViolations)
  if (stream) {
    // Item by item, each judged as it passes (#31 §2): the journal's record and violations fill as they go.
    const record: StreamRecord = { items: 0, bytes: 0, ended: 'streaming' }
    const listed = [...violations]
    exchange.responseViolations = listed
    exchange.answer = { status, headers, body: null, stream: record }
    const body = streamedBody(deps, operation, upstream, { reply, stream, record, violations: listed, connection })
    return { status, headers, body }
  }
  if (bodiless) reply.discardBody()
  const passed = bodiless ? null : (whole ?? reply.streamBody())
  // A streamed body is passed on, not kept: the journal shows none.
  exchange.answer = { status, headers, body: whole && passed ? whole : null }
  return { status, headers, body: passed }
}

/** The answer's headers but its connection's own: node writes a list (Set-Cookie) as one line each. */
function passedBack(received: ParsedHeaders): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {}
  for (const name in received) if (!NOT_PASSED_BACK.has(name)) headers[name] = received[name]!
  return headers
}

/**
 * The request's own headers but those of its connection, and where it came from (`X-Forwarded-*`).
 * `Accept-Encoding` is left out: the answer is checked, so it is asked for uncompressed. So is
 * `Expect`: the mock's server has answered `100-continue` itself, and the body is whole.
 */
function forwardedHeaders(source: HeaderSource, host: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {}
  const entries = source instanceof Headers ? source.entries() : Object.entries(source)
  for (const [name, value] of entries) {
    const lower = name.toLowerCase()
    if (value === undefined || HOP_BY_HOP.has(lower) || lower === 'accept-encoding' || lower === 'expect') continue
    headers[lower] = joinHeader(value)
  }
  if (host) headers['x-forwarded-host'] = host
  headers['x-forwarded-proto'] = 'http'
  return headers
}
