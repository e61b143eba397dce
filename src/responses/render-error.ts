import type { ValidateFunction } from 'ajv'
import type { MockError, Violation } from '../errors/index.js'
import { type ResponseSet, defaultBodyOf, findResponse, mediaOf } from './declared-responses.js'
import { type RenderContext, renderDeclared } from './render-response.js'

export interface RenderedError {
  status: number
  headers: Record<string, string>
  body: string | null
  /** How the declared body served in place of `{error, message}` breaks its schema, when the mock knows it does (see `RenderedResponse`). */
  violations?: readonly Violation[]
}

export interface ErrorContext extends RenderContext {
  /** `components.schemas.Error` of the description, for statuses the operation does not declare. */
  validateError?: ValidateFunction
}

/**
 * Maps a `MockError` to the description's error shape: `{ error: <status>, message }`, checked against
 * the schema of the response the operation declares for that status (else `components.schemas.Error`).
 * Where that schema has another shape, the declared body is served and the message goes in `X-Mock-Error`,
 * so that the response still honours the contract.
 */
export function renderError(
  error: MockError,
  responses: ResponseSet | undefined,
  context: ErrorContext,
): RenderedError {
  const { status } = error
  const headers: Record<string, string> = { ...error.headers }
  const candidate = { error: status, message: error.message }
  const declared = responses ? findResponse(responses.declared, status) : undefined
  if (declared && !declared.mediaType)
    return { status, headers: { ...headers, 'x-mock-error': asHeader(error.message) }, body: null }
  const media = declared ? mediaOf(declared) : []
  // Errors are JSON: a response declaring only XML or text keeps its shape, and the message goes in a header.
  const json = media.find((m) => m.kind === 'json')
  const validate = declared ? json?.validate : context.validateError
  if (!declared || (json && (!validate || validate(candidate)))) {
    return {
      status,
      headers: { ...headers, 'content-type': json?.contentType ?? 'application/json' },
      body: JSON.stringify(candidate),
    }
  }
  const served = json ?? media[0]!
  const body = defaultBodyOf(served)
  const source = body
    ? { kind: 'static' as const, body }
    : served.generatable
      ? { kind: context.dynamic ? ('generated' as const) : ('sampled' as const) }
      : { kind: 'empty' as const }
  const rendered = renderDeclared({ status, response: declared, media: served, source }, declared, context)
  const described: Record<string, string> = rendered.contentType ? { 'content-type': rendered.contentType } : {}
  return {
    status,
    headers: { ...headers, ...described, 'x-mock-error': asHeader(error.message) },
    body: rendered.body,
    violations: rendered.violations,
  }
}

/** Header values must be one line of visible ASCII. */
function asHeader(message: string): string {
  return message.replace(/[^\x20-\x7e]/g, '?').slice(0, 1024)
}
