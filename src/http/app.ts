import { Hono } from 'hono'
import { checkSecurity } from '../auth/check-security.js'
import type { CompiledOperation, Engine } from '../engine.js'
import { type Violation, errors, isMockError } from '../errors.js'
import type { RequestData } from '../request.js'
import { parsePrefer } from '../responses/prefer.js'
import { renderError } from '../responses/render-error.js'
import { renderResponse } from '../responses/render-response.js'
import { selectResponse } from '../responses/select-response.js'
import { matchOperation } from '../routing/match-operation.js'
import { selectMediaType, validateBody } from '../validation/validate-body.js'
import { validateParameters } from '../validation/validate-params.js'
import { incomingOf, toRequestData } from './middleware.js'
import { readBody } from './read-body.js'

type Env = { Variables: { operation?: CompiledOperation } }

/**
 * The request pipeline, in the one place its order is written:
 * match operation → check auth → validate parameters and body → choose response → render.
 */
export function createApp(engine: Engine): Hono<Env> {
  const app = new Hono<Env>()

  app.all('*', async function handleMockRequest(c) {
    const request = toRequestData(c)
    // 1. Match: unknown path → 404, undeclared method → 405.
    const { operation, params } = matchOperation(engine.router, request.method, request.path)
    c.set('operation', operation)
    // 2. Security comes before anything else the request asks for, Prefer included.
    if (operation.security) checkSecurity(operation.security, request)
    // 3. Every violation of parameters and body is reported in one response.
    const violations = operation.parameters ? validateParameters(operation.parameters, request, params) : []
    if (operation.body) {
      const incoming = incomingOf(c)
      // Under app.request() a body (bytes, a stream) may come with none of the headers that announce one.
      const mayHaveUnannouncedBody = incoming === undefined && c.req.raw.body !== null
      const read = () => readBody(c.req.raw, incoming, engine.options.maxBodyBytes)
      violations.push(...(await checkBody(operation, request, read, mayHaveUnannouncedBody)))
    }
    if (violations.length) throw errors.invalidRequest(operation.responses.violationStatus, violations)
    // 4. Decide the response, then render it.
    const plan = selectResponse(operation, parsePrefer(request.header('prefer')), engine.options)
    const { status, contentType, body } = renderResponse(plan, engine.faker, engine.errorContext)
    return new Response(body, { status, headers: contentType ? { 'content-type': contentType } : undefined })
  })

  app.onError(function renderMockError(error, c) {
    const mockError = isMockError(error) ? error : reportUnexpected(engine, error)
    const { status, headers, body } = renderError(mockError, c.get('operation')?.responses, engine.errorContext)
    return new Response(body, { status, headers })
  })

  return app
}

async function checkBody(
  operation: CompiledOperation,
  request: RequestData,
  read: () => Promise<Uint8Array>,
  mayHaveUnannouncedBody: boolean,
): Promise<Violation[]> {
  const body = operation.body!
  const contentType = request.header('content-type')
  const length = request.header('content-length')
  const hasBody = contentType !== undefined || (length !== undefined && length !== '0') || request.header('transfer-encoding') !== undefined
  // Read first when only reading can tell: bytes without Content-Type get 415, as they do over a socket.
  const bytes = !hasBody && mayHaveUnannouncedBody ? await read() : undefined
  if (!hasBody && !bytes?.byteLength) return body.required ? [{ path: 'body', message: 'is required but the request has no body' }] : []
  const media = selectMediaType(body, contentType)
  return validateBody(body, media, bytes ?? (await read())).violations
}

function reportUnexpected(engine: Engine, error: unknown) {
  const detail = engine.options.debug && error instanceof Error ? error.stack : String((error as Error)?.message ?? error)
  engine.logger.error(`unexpected failure while answering a request: ${detail}`)
  return errors.internal()
}
