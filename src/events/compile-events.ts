import type { Violation } from '../errors/index.js'
import type { EventDescription } from '../openapi/describe-events.js'
import type { OperationDescription } from '../openapi/operations.js'
import type { Fixture } from '../responses/fixtures.js'
import type { ResponseCompileContext } from '../responses/compile-responses.js'
import { compileResponses } from '../responses/compile-responses.js'
import { type ResponseSet, findResponse, mediaOf } from '../responses/declared-responses.js'
import { bodyViolations, schemaViolations } from '../validation/check-response-body.js'
import { type RuntimeExpression, RuntimeExpressionError, compileRuntimeExpression } from './runtime-expression.js'

/**
 * A callback or webhook ready to send: what its request carries (its body as the description
 * declares it, read as a response is, so that examples, static bodies and generation are the ones
 * answers have) and what it expects back from the receiver.
 */
export interface CompiledEvent {
  kind: EventDescription['kind']
  name: string
  /** A callback's URL expression as written; `''` for a webhook. */
  expression: string
  /** A callback's URL, compiled; `undefined` for a webhook, or a callback whose expression no reader takes (warned about). */
  url: RuntimeExpression | undefined
  method: string
  /** The request body as one declared "response" (status 200), or `undefined` when it has none. */
  body: ResponseSet | undefined
  /** What the receiver may answer. */
  answers: ResponseSet
}

/**
 * A callback has the operation that triggers it, and may have a fixture
 * (`fixtures/<operationId>/callbacks/<name>.json`): read as an answer's fixture is, checked against
 * the callback's body schema, its `{{request...}}` placeholders against the triggering operation.
 */
export function compileEvent(
  event: EventDescription,
  context: ResponseCompileContext,
  trigger?: { operation: OperationDescription; fixture?: Fixture },
): CompiledEvent {
  const { request } = event
  const content = request.requestBody?.content ?? []
  // The body is described as the one answer of the operation whose request its placeholders read.
  const reading = trigger?.operation ?? request
  const body = content.length
    ? compileResponses(
        context,
        {
          ...reading,
          id: `${reading.id} ${event.kind} ${event.name}`,
          responses: [{ code: '200', content, headers: [] }],
        },
        trigger?.fixture ? [trigger.fixture] : [],
      )
    : undefined
  return {
    kind: event.kind,
    name: event.name,
    expression: event.expression,
    url: event.kind === 'callback' ? compileUrl(event, context) : undefined,
    method: request.method,
    body,
    answers: compileResponses(context, request),
  }
}

/** The description's webhooks by name; one declared with several methods is sent with the first. */
export function compileWebhooks(
  events: readonly EventDescription[],
  context: ResponseCompileContext,
): Map<string, CompiledEvent> {
  const webhooks = new Map<string, CompiledEvent>()
  for (const event of events) if (!webhooks.has(event.name)) webhooks.set(event.name, compileEvent(event, context))
  return webhooks
}

/** A callback's URL expression; a malformed one is warned about and the callback never sent, as a description people publish must still load. */
function compileUrl(event: EventDescription, context: ResponseCompileContext): RuntimeExpression | undefined {
  try {
    return compileRuntimeExpression(event.expression)
  } catch (error) {
    if (!(error instanceof RuntimeExpressionError)) throw error
    context.logger.warn(`callback ${event.name}: ${error.message}; it is never sent.`)
    return undefined
  }
}

/**
 * How a receiver's answer breaks what the callback or webhook declares: a status it does not declare,
 * or a JSON body that breaks the declared schema. Reported with the delivery, never retried.
 */
export function answerViolations(event: CompiledEvent, status: number, contentType: string, text: string): Violation[] {
  const { declared } = event.answers
  // A description that declares no answer expects none in particular.
  if (declared.length === 0) return []
  const response = findResponse(declared, status)
  if (!response) {
    const codes = declared.map((r) => r.code).join(', ')
    return [{ path: 'status', message: `is ${status}, which the ${event.kind} does not declare (declared: ${codes})` }]
  }
  const media = mediaOf(response).find((m) => m.kind === 'json')
  if (!media?.validate || !/json/i.test(contentType) || text === '') return []
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return [{ path: 'body', message: 'is not JSON, as its content type says' }]
  }
  return schemaViolations(media, value)
}

/** How a body given for a webhook (`POST /__mock/webhooks`) breaks the declared request schema, undeclared fields included. */
export function givenBodyViolations(event: CompiledEvent, document: unknown, value: unknown): Violation[] {
  const response = event.body?.declared[0]
  const media = response && mediaOf(response).find((m) => m.kind === 'json')
  if (!media) return [{ path: 'body', message: `is given, but the ${event.kind} ${event.name} declares no JSON body` }]
  return bodyViolations({ document }, media, value)
}
