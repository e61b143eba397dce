import type { Logger } from '../log.js'
import { bodyProblems } from './compile-responses.js'
import type { Faker } from './fake.js'
import type { ResponsePlan } from './select-response.js'

export interface RenderedResponse {
  status: number
  contentType?: string
  body: string | null
}

const GENERATION_ATTEMPTS = 5

/** Turns a plan into bytes: static bodies were serialised at start-up; generated ones are made here. */
export function renderResponse(plan: ResponsePlan, faker: Faker, context: { document: unknown; logger: Logger }): RenderedResponse {
  const { status, response, source } = plan
  if (source.kind === 'static') return { status, contentType: response?.mediaType, body: source.body.json }
  if (source.kind === 'empty' || !response?.schemaPointer) return { status, body: null }
  return { status, contentType: response.mediaType, body: JSON.stringify(generateValid(response, faker, context)) }
}

/**
 * json-schema-faker is not exact at every edge (large bounds, some patterns), so each body is
 * checked against its schema and regenerated a few times before it is served with a warning.
 */
function generateValid(response: NonNullable<ResponsePlan['response']>, faker: Faker, context: { document: unknown; logger: Logger }) {
  let value: unknown
  let problems: string[] = []
  for (let attempt = 0; attempt < GENERATION_ATTEMPTS; attempt++) {
    value = faker(response.schemaPointer!)
    problems = bodyProblems(context, response, value)
    if (problems.length === 0) return value
  }
  context.logger.warn(`a generated ${response.code} body still breaks its schema after ${GENERATION_ATTEMPTS} tries: ${problems.join('; ')}`)
  return value
}
