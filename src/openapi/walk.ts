import { isPlainObject } from '../internal/plain-object.js'
import { HTTP_METHODS } from './operations.js'
import { pointerOf } from './resolve-ref.js'

type Visit = (schema: Record<string, any>, pointer: string) => void

/**
 * Visits every schema of an OpenAPI 3 description once, with its JSON pointer, in document order
 * (parents before children): the schemas of components, of parameters, headers, bodies and responses of every path
 * item (paths, webhooks, callbacks, components), of media types (`schema`, and 3.2's `itemSchema`, `$ref`'d ones
 * under `components/mediaTypes`), and the subschemas of each. Only schema
 * positions are visited, so a parameter's `required: true` or a property named `pattern` is never
 * taken for a keyword. Examples are data, not schemas (`example`, `examples`, Example Objects), so
 * they are never entered, and neither are extensions. This is the one walk over a description's
 * schemas: start-up passes that rewrite or check schemas use it. The walk keeps its own stack, so a
 * schema nested 20,000 levels deep cannot overflow the call stack, and a node reached twice (YAML
 * aliases) is visited once.
 */
export function walkSchemas(document: Record<string, any>, visit: Visit): void {
  const stack: Array<{ node: unknown; pointer: string; kind: Kind }> = []
  // Children are gathered, then stacked in reverse, so that schemas are visited in document order.
  let children: Array<{ node: unknown; pointer: string; kind: Kind }> = []
  const push = (node: unknown, pointer: string, kind: Kind) => {
    if (typeof node === 'object' && node !== null) children.push({ node, pointer, kind })
  }
  const stackChildren = () => {
    for (let index = children.length - 1; index >= 0; index--) stack.push(children[index]!)
    children = []
  }
  const components = document.components ?? {}
  eachEntry(components.schemas, '/components/schemas', (node, at) => push(node, at, 'schema'))
  eachEntry(components.parameters, '/components/parameters', (node, at) => push(node, at, 'parameter'))
  eachEntry(components.headers, '/components/headers', (node, at) => push(node, at, 'parameter'))
  eachEntry(components.requestBodies, '/components/requestBodies', (node, at) => push(node, at, 'body'))
  eachEntry(components.responses, '/components/responses', (node, at) => push(node, at, 'response'))
  eachEntry(components.callbacks, '/components/callbacks', (node, at) => push(node, at, 'callback'))
  eachEntry(components.pathItems, '/components/pathItems', (node, at) => push(node, at, 'pathItem'))
  eachEntry(components.mediaTypes, '/components/mediaTypes', (node, at) => push(node, at, 'media'))
  eachEntry(document.paths, '/paths', (node, at) => push(node, at, 'pathItem'))
  eachEntry(document.webhooks, '/webhooks', (node, at) => push(node, at, 'pathItem'))
  stackChildren()
  const seen = new Set<object>()
  while (stack.length) {
    const { node, pointer, kind } = stack.pop()!
    if (seen.has(node as object)) continue
    seen.add(node as object)
    const item = node as Record<string, any>
    switch (kind) {
      case 'schema':
        visit(item, pointer)
        pushSubschemas(item, pointer, push)
        break
      case 'pathItem':
        eachItem(item.parameters, `${pointer}/parameters`, (p, at) => push(p, at, 'parameter'))
        for (const method of HTTP_METHODS) if (item[method]) push(item[method], `${pointer}/${method}`, 'operation')
        eachEntry(item.additionalOperations, `${pointer}/additionalOperations`, (o, at) => push(o, at, 'operation'))
        break
      case 'operation':
        eachItem(item.parameters, `${pointer}/parameters`, (p, at) => push(p, at, 'parameter'))
        push(item.requestBody, `${pointer}/requestBody`, 'body')
        eachEntry(item.responses, `${pointer}/responses`, (r, at) => push(r, at, 'response'))
        eachEntry(item.callbacks, `${pointer}/callbacks`, (c, at) => push(c, at, 'callback'))
        break
      case 'callback':
        eachEntry(item, pointer, (p, at) => push(p, at, 'pathItem'))
        break
      case 'parameter':
        push(item.schema, `${pointer}/schema`, 'schema')
        eachEntry(item.content, `${pointer}/content`, (m, at) => push(m, at, 'media'))
        break
      case 'body':
        eachEntry(item.content, `${pointer}/content`, (m, at) => push(m, at, 'media'))
        break
      case 'response':
        eachEntry(item.content, `${pointer}/content`, (m, at) => push(m, at, 'media'))
        eachEntry(item.headers, `${pointer}/headers`, (h, at) => push(h, at, 'parameter'))
        break
      case 'media':
        // A `$ref`'d Media Type Object (OpenAPI 3.2) is walked where it lives, under `components/mediaTypes`.
        push(item.schema, `${pointer}/schema`, 'schema')
        push(item.itemSchema, `${pointer}/itemSchema`, 'schema')
        break
    }
    stackChildren()
  }
}

type Kind = 'schema' | 'pathItem' | 'operation' | 'callback' | 'parameter' | 'body' | 'response' | 'media'

/** Keywords whose value is one schema, a list of schemas, or a map of named schemas. */
const ONE_SCHEMA = [
  'items',
  'additionalProperties',
  'not',
  'contains',
  'propertyNames',
  'if',
  'then',
  'else',
  'unevaluatedProperties',
  'unevaluatedItems',
  'additionalItems',
]
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items']
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']

function pushSubschemas(
  schema: Record<string, any>,
  pointer: string,
  push: (node: unknown, pointer: string, kind: Kind) => void,
): void {
  for (const key of ONE_SCHEMA) if (!Array.isArray(schema[key])) push(schema[key], `${pointer}/${key}`, 'schema')
  for (const key of SCHEMA_LISTS) eachItem(schema[key], `${pointer}/${key}`, (s, at) => push(s, at, 'schema'))
  for (const key of SCHEMA_MAPS)
    eachEntry(schema[key], `${pointer}${pointerOf(key)}`, (s, at) => push(s, at, 'schema'), true)
}

/** The entries of a map of named things; `x-` keys are extensions, except in a map of properties. */
function eachEntry(map: unknown, pointer: string, each: (node: any, pointer: string) => void, namesOnly = false): void {
  if (!isPlainObject(map)) return
  for (const [key, node] of Object.entries(map))
    if (namesOnly || !key.startsWith('x-')) each(node, `${pointer}${pointerOf(key)}`)
}

function eachItem(list: unknown, pointer: string, each: (node: any, pointer: string) => void): void {
  if (Array.isArray(list)) list.forEach((node, index) => each(node, `${pointer}/${index}`))
}
