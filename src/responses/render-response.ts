import type { Logger } from '../log.js'
import { type DeclaredResponse, bodyProblems, schemaProblems } from './compile-responses.js'
import { nodeAt as valueAt } from '../spec/resolve-ref.js'
import type { Faker } from './fake.js'
import type { ResponsePlan } from './select-response.js'
import type { StaticBody } from './compile-responses.js'
import type { TemplateRequest } from './templates.js'

export interface RenderedResponse {
  status: number
  contentType?: string
  body: string | null
}

export interface RenderContext {
  document: unknown
  logger: Logger
  faker: Faker
}

const GENERATION_ATTEMPTS = 5

/**
 * Turns a plan into bytes. Static bodies were serialised at start-up; templated fixtures are
 * filled from the request; generated ones are made here. Whatever is made per request is checked
 * against the response schema before it is served.
 */
export function renderResponse(plan: ResponsePlan, context: RenderContext, request?: TemplateRequest): RenderedResponse {
  const { status, response, source } = plan
  if (source.kind === 'empty' || !response) return { status, body: null }
  if (source.kind === 'static') {
    const body = source.body.template && request ? renderTemplate(response, source.body, context, request) : source.body.json
    return { status, contentType: response.mediaType, body }
  }
  if (!response.schemaPointer) return { status, body: null }
  return { status, contentType: response.mediaType, body: JSON.stringify(generateValid(response, context)) }
}

/** A template that renders outside its schema (say, echoing a field the request lacks) yields to a generated body. */
function renderTemplate(response: DeclaredResponse, body: StaticBody, context: RenderContext, request: TemplateRequest): string {
  const template = body.template!
  const value = template.render(request)
  // The template's own fields were checked at start-up; only an object a placeholder pulled in can add undeclared ones.
  const problems = template.slots.some((slot) => isStructured(valueAt(value, slot)))
    ? bodyProblems(context, response, value)
    : schemaProblems(response, value)
  if (problems.length === 0) return JSON.stringify(value)
  context.logger.warn(`the fixture "${body.name}" (${response.code}) rendered a body that breaks its schema (${problems.join('; ')}); a generated body is served instead`)
  return JSON.stringify(generateValid(response, context))
}

/**
 * json-schema-faker is not exact at every edge (large bounds, some patterns), so each body is
 * checked against its schema and regenerated a few times before it is served with a warning.
 */
function generateValid(response: DeclaredResponse, context: RenderContext): unknown {
  let value: unknown
  let problems: string[] = []
  for (let attempt = 0; attempt < GENERATION_ATTEMPTS; attempt++) {
    value = context.faker(response.schemaPointer!)
    problems = bodyProblems(context, response, value)
    if (problems.length === 0) return value
  }
  context.logger.warn(`a generated ${response.code} body still breaks its schema after ${GENERATION_ATTEMPTS} tries: ${problems.join('; ')}`)
  return value
}

function isStructured(value: unknown): boolean {
  return typeof value === 'object' && value !== null
}
