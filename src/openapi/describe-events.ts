import { type OperationDescription, HTTP_METHODS, describeOperation } from './operations.js'
import type { SpecDocument } from './load-spec.js'
import { type Located, pointerOf, resolveRef } from './resolve-ref.js'

/**
 * A request the API sends to its clients, as the description declares it: an OpenAPI 3 callback of
 * an operation (its URL a runtime expression) or a 3.1 webhook (its URL the receiver's to give).
 * `request` is described as an operation is: its method, body and the answers it expects.
 */
export interface EventDescription {
  kind: 'callback' | 'webhook'
  /** The callback's key under `callbacks` (`onPlantAdded`), or the webhook's (`/plant/webhook`). */
  name: string
  /** A callback's URL, a runtime expression (`{$request.body#/callbackUrl}`); `''` for a webhook. */
  expression: string
  request: OperationDescription
}

/** The callbacks an operation declares, `$ref`s followed; one per callback, expression and method. */
export function describeCallbacks(document: any, operation: Located): EventDescription[] {
  const callbacks = operation.node?.callbacks
  if (!callbacks || typeof callbacks !== 'object') return []
  const events: EventDescription[] = []
  for (const [name, raw] of Object.entries(callbacks)) {
    const callback = resolveRef(document, { node: raw, pointer: `${operation.pointer}${pointerOf('callbacks', name)}` })
    if (!callback.node || typeof callback.node !== 'object') continue
    for (const [expression, rawItem] of Object.entries(callback.node)) {
      if (expression.startsWith('x-')) continue
      const item = resolveRef(document, { node: rawItem, pointer: `${callback.pointer}${pointerOf(expression)}` })
      events.push(...eventsOf(document, 'callback', name, expression, item))
    }
  }
  return events
}

/** The webhooks of an OpenAPI 3.1 description. */
export function describeWebhooks({ document }: SpecDocument): EventDescription[] {
  const webhooks = document.webhooks
  if (!webhooks || typeof webhooks !== 'object') return []
  return Object.entries(webhooks).flatMap(([name, raw]) => {
    if (name.startsWith('x-')) return []
    const item = resolveRef(document, { node: raw, pointer: pointerOf('webhooks', name) })
    return eventsOf(document, 'webhook', name, '', item)
  })
}

function eventsOf(
  document: any,
  kind: EventDescription['kind'],
  name: string,
  expression: string,
  item: Located,
): EventDescription[] {
  if (!item.node || typeof item.node !== 'object') return []
  return HTTP_METHODS.filter((method) => item.node[method]).map((method) => ({
    kind,
    name,
    expression,
    request: describeOperation(
      document,
      expression || name,
      method,
      { node: item.node[method], pointer: `${item.pointer}${pointerOf(method)}` },
      item,
      [],
    ),
  }))
}
