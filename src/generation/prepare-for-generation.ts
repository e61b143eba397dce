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
  return prepared
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
