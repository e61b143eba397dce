import { join } from 'pathe'
import { startupErrors } from '../errors/index.js'
import { isPlainObject } from '../internal/plain-object.js'
import { parseJsonOrYaml } from '../internal/yaml-parser.js'
import type { Files } from '../common/files.js'
import { readFirstFile } from '../common/read-first-file.js'
import type { CompiledOperation } from './compile-operation.js'
import type { StatefulSetup } from '../state/compile-stateful.js'
import { type CompiledEvent, compileWebhooks, givenBodyViolations } from '../events/compile-events.js'
import type { EventDescription } from '../openapi/describe-events.js'
import type { ResponseCompileContext } from '../responses/compile-responses.js'
import { type BodyTemplate, compileTemplate } from '../responses/templates.js'
import { isWebUrl } from '../internal/web-url.js'
import { isOperationNamed } from '../internal/operation-name.js'

const FILE_NAMES = ['webhooks.yaml', 'webhooks.yml', 'webhooks.json']
const BINDING_KEYS = ['on', 'to', 'body']
/** The events of stateful mode a webhook may follow: `plants.created`. */
const DATA_EVENTS = ['created', 'replaced', 'updated', 'deleted']

/** What a binding sends: a body of its own, its `{{request...}}` and `{{response...}}` placeholders filled per event; else the webhook's example. */
export type BindingBody = { value: unknown; template?: BodyTemplate } | undefined

/** One webhook bound to an event: sent after every 2xx answer of an operation, or every change of a resource's records. */
export interface WebhookBinding {
  webhook: CompiledEvent
  /** Where to: else the session's target, else `--webhook-url`. */
  to?: string
  body: BindingBody
  /** `addPlant`, or `plants.created`: the event as written, for the journal and messages. */
  on: string
}

/** The bindings of `fixtures/webhooks.yaml`, by what triggers them. */
export interface WebhookBindings {
  /** By operation index: sent after a 2xx answer. */
  byOperation: Map<number, WebhookBinding[]>
  /** By `resource.event` (`--stateful`): sent after the data changed so. */
  byDataEvent: Map<string, WebhookBinding[]>
}

/**
 * Reads `<fixtures>/webhooks.yaml`, every binding checked now: a webhook the description does not
 * declare, an operation or resource event that does not exist, a target that is no http(s) URL, a
 * body that breaks the webhook's schema stop start-up naming the file and the binding.
 * ```yaml
 * /plant/webhook:
 *   on: addPlant                  # operationId, "POST /plants", or with --stateful plants.created
 *   to: http://127.0.0.1:9000/hook
 *   body: "{{response.body}}"     # or "{{request.body}}", or a body of its own with placeholders
 * ```
 */
async function loadWebhookBindings(
  webhooks: ReadonlyMap<string, CompiledEvent>,
  { fixturesDir, files, operations, stateful }: EventSources,
  document: unknown,
): Promise<WebhookBindings> {
  const bindings: WebhookBindings = { byOperation: new Map(), byDataEvent: new Map() }
  const unreadable = (file: string, reason: string) => startupErrors.webhookFile(file, `cannot be read: ${reason}`)
  const found = fixturesDir
    ? await readFirstFile(
        FILE_NAMES.map((name) => join(fixturesDir, name)),
        files,
        unreadable,
      )
    : undefined
  if (!found) return bindings
  let parsed: unknown
  try {
    parsed = await parseJsonOrYaml(found.text, { uniqueKeys: true })
  } catch (error) {
    throw startupErrors.webhookFile(found.file, `is not valid YAML or JSON: ${(error as Error).message}`)
  }
  if (parsed === null || parsed === undefined) return bindings
  if (!isPlainObject(parsed)) throw startupErrors.webhookFile(found.file, 'must map webhook names to { on, to, body }')
  for (const [name, raw] of Object.entries(parsed)) {
    const webhook = webhooks.get(name)
    const where = `In ${found.file}, webhook "${name}"`
    if (!webhook)
      throw startupErrors.webhookBinding(
        where,
        `the description declares no such webhook (it declares ${[...webhooks.keys()].join(', ') || 'none'})`,
      )
    for (const [index, written] of (Array.isArray(raw) ? raw : [raw]).entries()) {
      const at = Array.isArray(raw) ? `${where} #${index + 1}` : where
      const binding = readBinding(at, webhook, written, document)
      const trigger = triggerOf(at, binding.on, operations, stateful)
      const map: Map<number | string, WebhookBinding[]> =
        typeof trigger === 'number' ? bindings.byOperation : bindings.byDataEvent
      map.set(trigger, [...(map.get(trigger) ?? []), binding])
    }
  }
  return bindings
}

function readBinding(where: string, webhook: CompiledEvent, written: unknown, document: unknown): WebhookBinding {
  if (!isPlainObject(written))
    throw startupErrors.webhookBinding(where, 'a binding is a map such as { on: addPlant, to: http://… }')
  const unknown = Object.keys(written).filter((key) => !BINDING_KEYS.includes(key))
  if (unknown.length)
    throw startupErrors.webhookBinding(
      where,
      `unknown field(s) ${unknown.join(', ')}; a binding takes ${BINDING_KEYS.join(', ')}`,
    )
  const { on, to, body } = written as Record<string, unknown>
  if (typeof on !== 'string' || on === '')
    throw startupErrors.webhookBinding(
      where,
      '"on" names an operation, or with --stateful a resource event such as plants.created',
    )
  if (to !== undefined && !isWebUrl(to))
    throw startupErrors.webhookBinding(where, `"to" must be an http: or https: URL, got ${JSON.stringify(to)}`)
  return { webhook, on, to: to as string | undefined, body: readBody(where, webhook, body, document) }
}

/** A body of the binding's own, compiled as a callback's fixture is; what its placeholders fill is checked when it is sent. */
function readBody(where: string, webhook: CompiledEvent, body: unknown, document: unknown): BindingBody {
  if (body === undefined) return undefined
  let template: BodyTemplate | undefined
  try {
    template = compileTemplate(body, `${where}, "body"`, undefined, true)
  } catch (error) {
    throw startupErrors.webhookBinding(where, (error as Error).message.replace(/\.$/, ''))
  }
  if (template) return { value: body, template }
  const violations = givenBodyViolations(webhook, document, body)
  if (violations.length)
    throw startupErrors.webhookBinding(
      where,
      `"body" breaks the webhook's schema: ${violations.map((v) => `${v.path} ${v.message}`).join('; ')}`,
    )
  return { value: body }
}

/** The operation's index, or the data event `resource.created`. */
function triggerOf(
  where: string,
  on: string,
  operations: readonly CompiledOperation[],
  stateful: StatefulSetup | undefined,
): number | string {
  const operation = operations.find((o) => isOperationNamed(o, on))
  if (operation) return operation.index
  const [resource, event] = on.split('.')
  if (event !== undefined && DATA_EVENTS.includes(event)) {
    if (!stateful)
      throw startupErrors.webhookBinding(where, `"${on}" is an event of stateful mode: start the mock with --stateful`)
    if (stateful.resources.some((r) => r.name === resource)) return on
    throw startupErrors.webhookBinding(
      where,
      `there is no resource "${resource}" (resources: ${stateful.resources.map((r) => r.name).join(', ') || 'none'})`,
    )
  }
  throw startupErrors.webhookBinding(
    where,
    `"${on}" names no operation and no resource event (operations: ${operations
      .slice(0, 10)
      .map((o) => o.id)
      .join(', ')}${operations.length > 10 ? ', …' : ''}; events: <resource>.${DATA_EVENTS.join('|')})`,
  )
}

/** Where bindings are read from (`fixtures/webhooks.yaml`), and what their events name: operations, resources. */
export interface EventSources {
  fixturesDir: string
  files: Files
  operations: readonly CompiledOperation[]
  stateful: StatefulSetup | undefined
}

/**
 * The description's webhooks, and their bindings of `fixtures/webhooks.yaml`; the operations whose
 * answers send something are marked (`sendsEvents`), so that no other request pays for events.
 */
export async function loadWebhooks(
  described: readonly EventDescription[],
  context: ResponseCompileContext,
  sources: EventSources,
): Promise<{ webhooks: Map<string, CompiledEvent>; webhookBindings: WebhookBindings }> {
  const webhooks = compileWebhooks(described, context)
  const webhookBindings = await loadWebhookBindings(webhooks, sources, context.document)
  markEventOperations(sources.operations, webhookBindings)
  return { webhooks, webhookBindings }
}

/** Marks the operations whose 2xx answers send something: their own callbacks, a webhook bound to them, or to an event of their records. */
function markEventOperations(operations: readonly CompiledOperation[], bindings: WebhookBindings): void {
  for (const operation of operations) {
    const resource = operation.stateful?.resource.name
    const onData =
      resource !== undefined && [...bindings.byDataEvent.keys()].some((event) => event.startsWith(`${resource}.`))
    if (bindings.byOperation.has(operation.index) || onData) operation.sendsEvents = true
  }
}
