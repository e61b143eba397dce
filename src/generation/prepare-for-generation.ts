import { BASE64 } from '../internal/base64.js'
import { derefSchema } from '../openapi/resolve-ref.js'
import { walkSchemas } from '../openapi/walk.js'
import { type GenerationBudget, GENERATION_BUDGET, exceedsBudget, withinBudget } from './generation-budget.js'

/** Generated lists hold at most this many items, or their minimum if larger. */
const FEW_ITEMS = 3

const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 }
/** The largest float below 2^63, so a generated int64 always prints within range. */
const INT64 = { min: -(2 ** 63), max: 2 ** 63 - 1024 }
/** json-schema-faker draws numbers from [-1000, 1000] unless told: a missing bound is put this far from the other. */
const SPREAD = 1000
/** Formats json-schema-faker does not know (byte) or gets wrong (duration gave `P0DT`): a pattern stands in. */
const FORMAT_PATTERNS: Record<string, string> = {
  byte: BASE64.source,
  duration: '^P[1-9]\\d?DT[1-9]\\d?H$',
  regex: '^[a-z]{1,8}$',
  'json-pointer-uri-fragment': '^#(/[a-z]{1,8}){0,3}$',
}
/** Formats ajv-formats checks under a name json-schema-faker does not know, and the one it knows that fits. */
const FORMAT_ALIASES: Record<string, string> = {
  url: 'uri',
  'uri-template': 'uri',
  'iso-date-time': 'date-time',
  'iso-time': 'time',
}

/**
 * json-schema-faker 0.6.3 has gaps that a schema rewrite closes, done once at start-up on a copy
 * (validators keep the schemas as written):
 * - a lone `minimum` above 1000 (or `maximum` below -1000) is ignored, because the other bound
 *   defaults to ±1000 (`minimum: 9007199254740000` gave 2393654696083927): the other bound is added;
 * - `int32` / `int64` ranges are not known to it: they become bounds;
 * - `format: byte` is not known to it and `duration` can come out wrong: a pattern stands in;
 * - a discriminator is not known to it: each branch of the oneOf/anyOf gets the tag it is mapped to;
 * - a large `maxItems` made lists of up to that many items: lists hold a few;
 * - what asks for more than the generation budget could hold is left out (`beyondBudget` is told
 *   of it), and long strings are cut (`withinBudget`).
 */
export function prepareForGeneration(
  document: unknown,
  budget: GenerationBudget = GENERATION_BUDGET,
  beyondBudget?: () => void,
): unknown {
  const prepared = structuredClone(document) as Record<string, any>
  walkSchemas(prepared, (schema) => {
    dropExtensions(schema)
    if (beyondBudget && exceedsBudget(schema, budget)) beyondBudget()
    withinBudget(schema, budget)
    completeNumericBounds(schema)
    // A list may hold up to maxItems, but a few items show its shape as well as fifty, at a fraction of the work.
    if (typeof schema.maxItems === 'number' && schema.maxItems > Math.max(schema.minItems ?? 0, FEW_ITEMS))
      schema.maxItems = Math.max(schema.minItems ?? 0, FEW_ITEMS)
    const pattern = FORMAT_PATTERNS[schema.format]
    if (pattern !== undefined && schema.pattern === undefined) {
      schema.pattern = pattern
      delete schema.format
    }
    if (typeof schema.format === 'string' && FORMAT_ALIASES[schema.format])
      schema.format = FORMAT_ALIASES[schema.format]
  })
  // Discriminators read the original branches (the rewrite wraps them), so they come second.
  walkSchemas(prepared, (schema) => tagDiscriminatedBranches(prepared, schema))
  inlineAcyclicRefs(prepared)
  return prepared
}

const COMPONENT_SCHEMA = '#/components/schemas/'

/**
 * json-schema-faker counts each `$ref` it follows as a level of depth, and from its fifth level on
 * makes required properties only: a list of `Tag`s, given by `$ref`, came out `[{}, {}, {}]` where
 * the same schema written inline was filled (#36 §2). So a `$ref` to a component schema that no
 * cycle of `$ref`s leads back to is replaced, in the copy, by the component itself (one object,
 * shared): depth then counts the body's own nesting. A `$ref` into a cycle stays, and json-schema-faker
 * bounds the recursion as before.
 */
function inlineAcyclicRefs(prepared: Record<string, any>): void {
  const components = prepared.components?.schemas as Record<string, unknown> | undefined
  if (!components || typeof components !== 'object') return
  const nameOf = (ref: string): string | undefined => {
    if (!ref.startsWith(COMPONENT_SCHEMA)) return undefined
    const rest = ref.slice(COMPONENT_SCHEMA.length)
    if (rest.includes('/')) return undefined
    const name = decodeURIComponent(rest).replace(/~1/g, '/').replace(/~0/g, '~')
    return Object.hasOwn(components, name) ? name : undefined
  }
  const edges = new Map<string, string[]>()
  for (const [name, schema] of Object.entries(components)) {
    const targets: string[] = []
    eachSchemaRef(schema, (ref) => {
      const target = nameOf(ref)
      if (target !== undefined) targets.push(target)
    })
    edges.set(name, targets)
  }
  const cyclic = namesOnCycles(edges)
  const inline = (node: unknown, seen: Set<object>): void => {
    if (typeof node !== 'object' || node === null || seen.has(node)) return
    seen.add(node)
    const entries: Array<[string | number, unknown]> = Array.isArray(node)
      ? node.map((value, index) => [index, value])
      : Object.entries(node)
    for (const [key, value] of entries) {
      if (key === 'example' || key === 'examples') continue
      const target = refOnly(value) !== undefined ? nameOf(refOnly(value)!) : undefined
      if (target !== undefined && !cyclic.has(target) && typeof components[target] === 'object') {
        ;(node as Record<string | number, unknown>)[key] = components[target]
        inline(components[target], seen)
      } else inline(value, seen)
    }
  }
  inline(prepared.paths, new Set())
  inline(prepared.webhooks, new Set())
  inline(components, new Set())
}

/** The `$ref` of a node that is a `$ref` and nothing else (siblings would be lost by replacing it). */
function refOnly(node: unknown): string | undefined {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return undefined
  const keys = Object.keys(node)
  const ref = (node as Record<string, unknown>).$ref
  return keys.length === 1 && typeof ref === 'string' ? ref : undefined
}

/** Every `$ref` string under a node, examples left out. */
function eachSchemaRef(root: unknown, visit: (ref: string) => void): void {
  const stack: unknown[] = [root]
  while (stack.length) {
    const node = stack.pop()
    if (typeof node !== 'object' || node === null) continue
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') visit(value)
      else if (key !== 'example' && key !== 'examples') stack.push(value)
    }
  }
}

/** The names that lie on a cycle of the graph (a strongly connected component of two or more, or a name that leads to itself): Tarjan's algorithm, iterative. */
function namesOnCycles(edges: ReadonlyMap<string, readonly string[]>): Set<string> {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const onStack = new Set<string>()
  const stack: string[] = []
  const cyclic = new Set<string>()
  let counter = 0
  for (const start of edges.keys()) {
    if (index.has(start)) continue
    const work: Array<{ name: string; next: number }> = [{ name: start, next: 0 }]
    index.set(start, counter)
    low.set(start, counter++)
    stack.push(start)
    onStack.add(start)
    while (work.length) {
      const frame = work[work.length - 1]!
      const targets = edges.get(frame.name) ?? []
      if (frame.next < targets.length) {
        const target = targets[frame.next++]!
        if (!index.has(target)) {
          index.set(target, counter)
          low.set(target, counter++)
          stack.push(target)
          onStack.add(target)
          work.push({ name: target, next: 0 })
        } else if (onStack.has(target)) low.set(frame.name, Math.min(low.get(frame.name)!, index.get(target)!))
        continue
      }
      work.pop()
      if (work.length) {
        const parent = work[work.length - 1]!.name
        low.set(parent, Math.min(low.get(parent)!, low.get(frame.name)!))
      }
      if (low.get(frame.name) === index.get(frame.name)) {
        const component: string[] = []
        let member: string
        do {
          member = stack.pop()!
          onStack.delete(member)
          component.push(member)
        } while (member !== frame.name)
        if (component.length > 1 || (edges.get(frame.name) ?? []).includes(frame.name))
          for (const name of component) cyclic.add(name)
      }
    }
  }
  return cyclic
}

/**
 * A copy of the description whose schemas ask for no more than the budget holds (`withinBudget`),
 * and nothing else changed: what the sampler reads where some schema asks for more (a
 * `minItems: 1000000000` it would otherwise fill).
 */
export function copyWithinBudget(document: unknown, budget: GenerationBudget): unknown {
  const copy = structuredClone(document) as Record<string, any>
  walkSchemas(copy, (schema) => withinBudget(schema, budget))
  return copy
}

function completeNumericBounds(schema: Record<string, any>): void {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type]
  if (!types.includes('integer') && !types.includes('number')) return
  const range = schema.format === 'int32' ? INT32 : schema.format === 'int64' ? INT64 : undefined
  const low = schema.exclusiveMinimum ?? schema.minimum
  const high = schema.exclusiveMaximum ?? schema.maximum
  // With neither bound, json-schema-faker's own [-1000, 1000] is inside every range.
  if (low === undefined && high === undefined) return
  const spread = Math.max(SPREAD, (schema.multipleOf ?? 1) * 10)
  if (high === undefined) schema.maximum = Math.min(range?.max ?? Infinity, (low ?? 0) + spread)
  if (low === undefined) schema.minimum = Math.max(range?.min ?? -Infinity, high - spread)
  if (range && typeof schema.minimum === 'number' && schema.minimum < range.min) schema.minimum = range.min
  if (range && typeof schema.maximum === 'number' && schema.maximum > range.max) schema.maximum = range.max
}

/**
 * `oneOf: [Cat, Dog]` with `discriminator: { propertyName: petType, mapping: { cat: Cat } }` →
 * `oneOf: [allOf[Cat, { petType: const cat }], allOf[Dog, { petType: const Dog }]]`: an unmapped
 * branch is tagged with its schema name, as OpenAPI says.
 */
function tagDiscriminatedBranches(document: unknown, schema: Record<string, any>): void {
  const propertyName = schema.discriminator?.propertyName
  if (typeof propertyName !== 'string') return
  const mapping: Record<string, string> = schema.discriminator.mapping ?? {}
  for (const keyword of ['oneOf', 'anyOf'] as const) {
    if (!Array.isArray(schema[keyword])) continue
    schema[keyword] = schema[keyword].map((branch: any) => {
      const ref = typeof branch?.$ref === 'string' ? branch.$ref : undefined
      if (!ref || !derefSchema(document, branch)) return branch
      const tag =
        Object.entries(mapping).find(([, target]) => target === ref || target === ref.split('/').pop())?.[0] ??
        ref.split('/').pop()
      return { allOf: [branch, { properties: { [propertyName]: { const: tag } } }] }
    })
  }
}

/** OpenAPI's words beside a schema's keywords, which json-schema-faker does not know. */
const ANNOTATIONS = new Set(['xml', 'externalDocs', 'example', 'nullable'])

/**
 * json-schema-faker takes the words it does not know, in an object schema without `properties`, for
 * properties: `{ type: object, xml: {…}, nullable: true }` came out as `{"xml": {…}, "nullable":
 * true}`, and files.com's extension `x-object-type: { type: hash }` threw "unknown primitive hash"
 * (14 operations answered 500). Extensions and OpenAPI's annotations are left out of the copy it
 * reads, and an object schema without properties gets an empty list of them.
 */
function dropExtensions(schema: Record<string, any>): void {
  for (const key of Object.keys(schema)) if (key.startsWith('x-') || ANNOTATIONS.has(key)) delete schema[key]
  const types = Array.isArray(schema.type) ? schema.type : [schema.type]
  if (types.includes('object') && schema.properties === undefined) schema.properties = {}
}
