export type { EventInput } from './event-trigger.js'
import { ADMIN_PREFIX } from '../common/config.js'
import type { Engine } from '../engine/engine.js'
import { type Violation, errors } from '../errors/index.js'
import { isLoopbackName } from '../internal/host-names.js'
import type { Exchange, PipelineDeps } from './exchange.js'
import { requestSession } from '../common/request.js'
import { renderDeclared } from '../responses/render-response.js'
import { selectResponse } from '../responses/select-response.js'
import type { TemplateRequest } from '../responses/templates.js'
import type { RuntimeState } from '../engine/runtime-state.js'
import { type CompiledEvent, answerViolations, givenBodyViolations } from '../events/compile-events.js'
import { Deliverer, type DeliveryRecord } from '../events/delivery.js'
import { signBody } from '../events/delivery-attempt.js'
import { type EventInput, type Trigger, triggerOf } from './event-trigger.js'
import type { WebhookBinding } from '../engine/load-webhook-bindings.js'

/**
 * The sender of one mock: its options, and the targets it refuses. On loopback any host may be a
 * target (the receivers of a test); a mock listening beyond loopback sends only to `--webhook-allow`,
 * since a callback's URL comes from a request body. Its own admin API is never a target.
 */
export function createDeliverer({ options, logger, platform }: Engine): Deliverer {
  const secret = options.webhookSecret
  return new Deliverer({
    timeoutMs: options.webhookTimeoutMs,
    retries: options.webhookRetries,
    maxInFlight: options.maxDeliveriesInFlight,
    sign: secret === undefined ? undefined : (body) => signBody(platform.crypto, secret, body),
    allowedHosts: isLoopbackName(options.host) ? undefined : options.webhookAllow,
    refuse: (url) => (isAdminPath(url) ? `${ADMIN_PREFIX} is the admin API of a mock, never a receiver` : undefined),
    logger,
  })
}

/**
 * A path the mock would route to its admin API: as the router reads it, percent-decoded and with
 * repeated slashes as one (`/%5F%5Fmock/reset` is `/__mock/reset`), whatever the host: the URL of a
 * callback comes from a request body, and must not reset the mock that sends it.
 */
function isAdminPath(url: URL): boolean {
  let path = url.pathname
  try {
    path = decodeURIComponent(path)
  } catch {
    // Left as written: a malformed escape reaches no route decoded either.
  }
  path = path.replace(/\/{2,}/g, '/').toLowerCase()
  return path === ADMIN_PREFIX || path.startsWith(`${ADMIN_PREFIX}/`)
}

/**
 * After a 2xx answer: the operation's callbacks, then the webhooks `fixtures/webhooks.yaml` binds to
 * the operation or to what it did to the data (`plants.created`). Sent off the request path: they
 * never delay or change the answer, and what cannot be sent is logged, never thrown.
 */
export function sendEvents(exchange: Exchange, deps: PipelineDeps, input: EventInput): void {
  try {
    if (!exchange.answer) return
    const trigger = triggerOf(exchange, input)
    sendCallbacks(exchange, deps, trigger)
    sendBoundWebhooks(exchange, deps, trigger)
  } catch (error) {
    deps.engine.logger.error(`events of ${exchange.operation?.id} not sent: ${(error as Error).message}`)
  }
}

/** Each callback's request, its URL from its runtime expression; one whose URL resolves to nothing is skipped and logged. */
function sendCallbacks(exchange: Exchange, { engine, state }: PipelineDeps, { source, request }: Trigger): void {
  const { operation } = exchange
  if (!operation?.callbacks || !state.deliveries) return
  for (const event of operation.callbacks) {
    const url = event.url?.evaluate(source)
    if (url === undefined) {
      const missing = event.url?.missingIn(source) ?? event.expression
      engine.logger.info(`callback ${event.name} of ${operation.id} not sent: ${missing} has no value in this exchange`)
      continue
    }
    const made = bodyOf(engine, event, request)
    if (made.violations) {
      engine.logger.warn(
        `callback ${event.name} of ${operation.id} not sent: no body meets its schema (${problemsOf(made.violations)})`,
      )
      continue
    }
    send(state.deliveries, event, made, { url, operation: operation.id, session: requestSession(exchange.request) })
  }
}

/**
 * A webhook sent now (`POST /__mock/webhooks`, `mock.sendWebhook`): the body given, checked against
 * the webhook's schema (400 naming what breaks it), else its example or a body made of its schema.
 */
export function sendWebhook(
  engine: Engine,
  state: RuntimeState,
  request: { name: string; to?: string; body?: unknown; session?: string },
): DeliveryRecord {
  const event = engine.webhooks.get(request.name)
  if (!event) throw errors.unknownWebhook(request.name, [...engine.webhooks.keys()])
  const url = request.to ?? targetOf(engine, state, request.name, request.session)
  if (url === undefined || !state.deliveries) throw errors.webhookWithoutTarget(request.name)
  let made: MadeBody
  if (request.body !== undefined) {
    const violations = givenBodyViolations(event, engine.errorContext.document, request.body)
    if (violations.length) throw errors.webhookBodyInvalid(request.name, violations)
    made = { text: JSON.stringify(request.body), contentType: 'application/json' }
  } else {
    made = bodyOf(engine, event)
    if (made.violations) throw errors.webhookBodyUnmade(request.name, made.violations)
  }
  return send(state.deliveries, event, made, { url, session: request.session })
}

/**
 * The webhooks bound to the operation and to the data event of its answer. The target: the session's
 * (`PUT /__mock/webhooks/targets`), else the binding's `to`, else `--webhook-url`; the body: the
 * request's or the answer's (`{{request.body}}`, `{{response.body}}`) checked against the webhook's
 * schema, the binding's own, or the webhook's example or static body.
 */
function sendBoundWebhooks(exchange: Exchange, { engine, state }: PipelineDeps, trigger: Trigger): void {
  const { operation } = exchange
  if (!operation || !state.deliveries) return
  const { byOperation, byDataEvent } = engine.webhookBindings
  const dataEvent =
    operation.stateful && exchange.dataEffect
      ? `${operation.stateful.resource.name}.${exchange.dataEffect.split(' ')[0]}`
      : undefined
  const bindings = [...(byOperation.get(operation.index) ?? []), ...((dataEvent && byDataEvent.get(dataEvent)) || [])]
  const session = requestSession(exchange.request)
  for (const binding of bindings) {
    const { webhook } = binding
    const url = state.webhookTargets.targetOf(session, webhook.name) ?? binding.to ?? engine.options.webhookUrl
    if (url === undefined) {
      engine.logger.info(
        `webhook ${webhook.name} on ${binding.on} not sent: no target (give "to", PUT /__mock/webhooks/targets, or --webhook-url)`,
      )
      continue
    }
    const made = boundBody(engine, trigger, binding)
    if (made.violations) {
      engine.logger.warn(
        `webhook ${webhook.name} on ${binding.on} not sent: its body breaks the webhook's schema (${problemsOf(made.violations)})`,
      )
      continue
    }
    send(state.deliveries, webhook, made, { url, operation: operation.id, session })
  }
}

function boundBody(engine: Engine, trigger: Trigger, binding: WebhookBinding): MadeBody {
  const { body, webhook } = binding
  if (body === undefined) return bodyOf(engine, webhook)
  const value = body.template ? body.template.render(trigger.request) : body.value
  const violations = givenBodyViolations(webhook, engine.errorContext.document, value)
  return violations.length ? { violations } : { text: JSON.stringify(value), contentType: 'application/json' }
}

/** Where a webhook goes when the caller names no target: the session's, else `--webhook-url`. */
function targetOf(engine: Engine, state: RuntimeState, name: string, session: string | undefined): string | undefined {
  return state.webhookTargets.targetOf(session, name) ?? engine.options.webhookUrl
}

/** A request body as sent: its text and content type, and how it breaks its schema when no body could meet it. */
interface MadeBody {
  text?: string
  contentType?: string
  violations?: readonly Violation[]
}

function send(
  deliveries: Deliverer,
  event: CompiledEvent,
  made: MadeBody,
  target: { url: string; operation?: string; session?: string },
): DeliveryRecord {
  const headers: Record<string, string> = {}
  if (made.contentType) headers['content-type'] = made.contentType
  return deliveries.send({
    kind: event.kind,
    name: event.name,
    operation: target.operation,
    session: target.session,
    url: target.url,
    method: event.method,
    headers,
    body: made.text,
    checkAnswer: (status, answerHeaders, text) =>
      answerViolations(event, status, answerHeaders.get('content-type') ?? '', text),
  })
}

/** The body the event declares, as an answer's is made: an example, else a static body of its schema (or generated, `--dynamic`). */
function bodyOf(engine: Engine, event: CompiledEvent, request?: TemplateRequest): MadeBody {
  if (!event.body) return {}
  const selected = selectResponse({ id: event.name, responses: event.body }, {}, engine.options)
  // Deliveries carry text: a binary media type's body is made as before #31, from its schema as text.
  const plan = selected.media?.binary ? { ...selected, media: { ...selected.media, binary: undefined } } : selected
  const rendered = renderDeclared(plan, plan.response!, engine.errorContext, request)
  const text = typeof rendered.body === 'string' ? rendered.body : undefined
  return { text, contentType: rendered.contentType, violations: rendered.violations }
}

function problemsOf(violations: readonly Violation[]): string {
  return violations.map((v) => `${v.path} ${v.message}`).join('; ')
}
