import type { ValidateFunction } from 'ajv'
import type { MockError, Violation } from '../errors/index.js'
import {
  type DeclaredMedia,
  type ResponseSet,
  type StaticBody,
  defaultBodyOf,
  findResponse,
  mediaOf,
} from './declared-responses.js'
import { type RenderContext, renderDeclared } from './render-response.js'

export interface RenderedError {
  status: number
  headers: Record<string, string>
  body: string | Uint8Array | null
  /** How the declared body served in place of `{error, message}` breaks its schema, when the mock knows it does (see `RenderedResponse`). */
  violations?: readonly Violation[]
  /** The description's answer (an example, a body of its schema, or none) was served, not the mock's message: it is in `X-Mock-Error`. */
  declared?: true
  /** The declared example served, when one was. */
  staticBody?: StaticBody
}

export interface ErrorContext extends RenderContext {
  /** `components.schemas.Error` of the description, for statuses the operation does not declare. */
  validateError?: ValidateFunction
}

/**
 * Errors about the mock's own controls (`Prefer`, `?__code=`), not about the request to the described
 * API: answered in the mock's own shape whatever the operation declares for their status (#30). A
 * declared 404's "not found" example would tell a client that asked for an undeclared status something false.
 */
const OWN_ANSWERS = new Set<MockError['kind']>(['undeclared_preference'])

/**
 * Maps a `MockError` to the answer the description declares for its status (#30): the operation's
 * response for that status (exact, then its range, then `default`) answers with its own example (the
 * one `Prefer: example=` names, else its first), as Prism does. Without one, the mock's
 * `{ error: <status>, message }` is served where the declared schema (else `components.schemas.Error`)
 * accepts it, so that the body says what was wrong; where it does not, a body of the declared schema.
 * Whenever the declared body is served, the message goes in `X-Mock-Error`.
 */
export function renderError(
  error: MockError,
  responses: ResponseSet | undefined,
  context: ErrorContext,
  exampleName?: string,
): RenderedError {
  const { status } = error
  const headers: Record<string, string> = { ...error.headers }
  const declared = responses && !OWN_ANSWERS.has(error.kind) ? findResponse(responses.declared, status) : undefined
  if (declared && !declared.mediaType)
    return { status, headers: { ...headers, 'x-mock-error': asHeader(error.message) }, body: null, declared: true }
  const media = declared ? mediaOf(declared) : []
  // Errors are JSON: a response declaring only XML or text keeps its shape, and the message goes in a header.
  const json = media.find((m) => m.kind === 'json')
  const example = declared ? describedExample(json ?? media[0]!, exampleName) : undefined
  const candidate = { error: status, message: error.message }
  const validate = declared ? json?.validate : context.validateError
  if (!example && (!declared || (json && (!validate || validate(candidate))))) {
    return {
      status,
      headers: { ...headers, 'content-type': json?.contentType ?? 'application/json' },
      body: JSON.stringify(candidate),
    }
  }
  const served = json ?? media[0]!
  const body = example ?? defaultBodyOf(served)
  const source = body
    ? { kind: 'static' as const, body }
    : served.generatable
      ? { kind: context.dynamic ? ('generated' as const) : ('sampled' as const) }
      : { kind: 'empty' as const }
  const rendered = renderDeclared({ status, response: declared!, media: served, source }, declared!, context)
  const described: Record<string, string> = rendered.contentType ? { 'content-type': rendered.contentType } : {}
  return {
    status,
    headers: { ...headers, ...described, 'x-mock-error': asHeader(error.message) },
    body: rendered.body,
    violations: rendered.violations,
    declared: true,
    staticBody: rendered.staticBody,
  }
}

/**
 * The body an error answer takes from the description: the one `Prefer: example=` names (a fixture of
 * that name too: the client asked for it), else the description's first example of the media type.
 * Fixtures alone do not replace the mock's message: `400.json` is what `Prefer: code=400` answers.
 */
function describedExample(media: DeclaredMedia, name: string | undefined): StaticBody | undefined {
  const named = name === undefined ? undefined : media.bodies.get(name)
  if (named) return named
  for (const body of media.bodies.values()) if (body.origin === 'example') return body
  return undefined
}

/** Header values must be one line of visible ASCII. */
function asHeader(message: string): string {
  return message.replace(/[^\x20-\x7e]/g, '?').slice(0, 1024)
}
