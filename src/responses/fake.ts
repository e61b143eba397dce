import { generateSync } from 'json-schema-faker'
import { BASE64 } from '../internal/base64.js'
import { derefSchema, nodeAt } from '../openapi/resolve-ref.js'
import { walkSchemas } from '../openapi/walk.js'
import { type GenerationBudget, GENERATION_BUDGET, exceedsBudget, withinBudget } from './generation-budget.js'
import type { Deadline } from './generation-deadline.js'

/**
 * Generates values for schemas of the description, in a sequence that the seed fixes: the schema at
 * a JSON pointer, or a schema object of the description (its `$ref`s resolve in the description).
 * Given a deadline, generation stops with its error once the deadline has passed.
 */
export interface Faker {
  (schema: string | object, deadline?: Deadline): unknown
  /**
   * The same, from a seed of its own instead of the next in the sequence: what it makes depends on
   * nothing else the app generated before, so a static body mended with it is the same on every run.
   */
  seeded(schema: string | object, seed: number, deadline?: Deadline): unknown
  /** Numbers in [0, 1) in a sequence the app's seed fixes, for the choices mending makes (`mendGenerated`). */
  readonly random: () => number
  /**
   * Some object of the description asks for more than the budget could hold (`exceedsBudget`):
   * found while preparing the copy, so that a description without one pays for no walk of its own.
   */
  readonly beyondBudget: boolean
}

/** How generated bodies are filled, per app. */
export interface FakerOptions {
  /**
   * Every optional property of an object appears (true), or only its required ones (false: the
   * mock's `fillProperties`, Prism's `--json-schema-faker-fillProperties=false`). @default true
   */
  fillProperties?: boolean
}

/**
 * A generator over a copy of the description prepared once for json-schema-faker (see
 * `prepareForGeneration`), within the app's generation budget. Give it the response view of the
 * description (`deriveReadWriteViews`), so that writeOnly properties are never generated.
 */
export function createFaker(
  document: unknown,
  seed: number,
  budget: GenerationBudget = GENERATION_BUDGET,
  options: FakerOptions = {},
): Faker {
  // Prepared at start-up, not on the first generated body: for a large description that took
  // 300 ms, and a first request must answer within 50 ms (#11).
  return createGenerator(document, seed, budget, options.fillProperties ?? true)
}

function createGenerator(document: unknown, seed: number, budget: GenerationBudget, fillProperties: boolean): Faker {
  let beyondBudget = false
  const prepared = prepareForGeneration(document, budget, () => (beyondBudget = true))
  // A schema object of the description (one a validator's error names) is generated from its prepared copy.
  const copies = copiesOf(document, prepared)
  // The deadline of the value being generated. Generation is synchronous and this faker is its
  // app's own, so one slot is enough, and another app's budget never reaches it.
  let current: Deadline | undefined
  // json-schema-faker's own sequence (`createGeneratorSync`) is seed, seed + 1, ... per value: the
  // same here, with `seeded` drawing outside it.
  let next = seed
  const options = {
    // Every optional field appears (or, told so, none does), and never a field the schema does not
    // declare. A probability of 0, not json-schema-faker's 0.5: optional fields are left out so that
    // bodies show the least a client must handle, every time. json-schema-faker's own
    // `fillProperties` is left at its default (true): false would still put a skeleton of each
    // optional object, its required fields, in the body.
    alwaysFakeOptionals: fillProperties,
    optionalsProbability: fillProperties ? 1 : 0,
    refResolver: (ref: string) => (nodeAt(prepared, ref.replace(/^#/, '')) ?? {}) as never,
    // json-schema-faker 0.6.3 takes no random function (it makes its own from the seed), but calls
    // this on every value it makes (each item, property and nested value): the deadline is checked
    // here. The value being made is finished first: a string of up to the byte budget, which it
    // makes again up to 50 times where the string's pattern and length bounds disagree (2.3 s for
    // `^x{1000000}$` beside `maxLength: 10`). The value is returned as it is, so the seeded
    // sequence is unchanged.
    outputTransform: (value: unknown) => {
      current?.tick()
      return value
    },
  }
  const generate = (schema: string | object, valueSeed: number, deadline: Deadline | undefined) => {
    current = deadline
    try {
      const target =
        typeof schema === 'string'
          ? { $ref: `#${schema}` }
          : (copies.get(schema) ?? withinBudget({ ...schema }, budget))
      return generateSync(target as never, { ...options, seed: valueSeed })
    } finally {
      current = undefined
    }
  }
  const fake = (schema: string | object, deadline?: Deadline) => generate(schema, next++, deadline)
  const seeded = (schema: string | object, valueSeed: number, deadline?: Deadline) =>
    generate(schema, valueSeed, deadline)
  return Object.assign(fake, { seeded, random: seededRandom(seed), beyondBudget })
}

/**
 * Numbers in [0, 1) that a seed fixes (mulberry32): json-schema-faker keeps its own generator to
 * itself, and mending needs one where Math.random would make bodies differ from run to run.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Each object of the description mapped to its counterpart in the prepared copy (same structure). */
function copiesOf(original: unknown, copy: unknown): WeakMap<object, object> {
  const copies = new WeakMap<object, object>()
  const stack: Array<[unknown, unknown]> = [[original, copy]]
  while (stack.length) {
    const [from, to] = stack.pop()!
    if (typeof from !== 'object' || from === null || typeof to !== 'object' || to === null || copies.has(from)) continue
    copies.set(from, to)
    for (const [key, value] of Object.entries(from))
      if (key !== 'example' && key !== 'examples') stack.push([value, (to as Record<string, unknown>)[key]])
  }
  return copies
}

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
function prepareForGeneration(
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
