import type { ErrorObject } from 'ajv'
import { pointerTokens } from '../openapi/resolve-ref.js'
import { createRequire } from 'node:module'
import { compilePattern } from '../validation/compile-pattern.js'
import { type GenerationBudget, GENERATION_BUDGET, exceedsBudget } from './generation-budget.js'
import { isPlainObject } from '../plain-object.js'

/**
 * Values that satisfy a format (as ajv-formats checks it), for formats json-schema-faker leaves
 * unknown or gets wrong.
 */
const FORMAT_SAMPLES: Record<string, string[]> = {
  url: ['https://example.com/'],
  uri: ['https://example.com/'],
  'uri-reference': ['/example'],
  'uri-template': ['https://example.com/{id}'],
  iri: ['https://example.com/'],
  'iri-reference': ['/example'],
  email: ['user@example.com'],
  'idn-email': ['user@example.com'],
  hostname: ['example.com'],
  'idn-hostname': ['example.com'],
  // Several lengths: descriptions pin date-times to one with minLength/maxLength (telstra: 24).
  'date-time': [
    '2024-01-01T00:00:00Z',
    '2024-01-01T00:00:00.000Z',
    '2024-01-01T00:00:00+00:00',
    '2024-01-01T00:00:00.000+00:00',
  ],
  'iso-date-time': ['2024-01-01T00:00:00Z', '2024-01-01T00:00:00.000Z'],
  date: ['2024-01-01'],
  time: ['12:00:00Z', '12:00:00.000Z', '12:00:00+00:00'],
  'iso-time': ['12:00:00Z'],
  duration: ['P1D'],
  uuid: ['3fa85f64-5717-4562-b3fc-2c963f66afa6'],
  ipv4: ['192.0.2.1'],
  ipv6: ['2001:db8::1'],
  regex: ['^[a-z]+$'],
  'json-pointer': ['/example'],
  'json-pointer-uri-fragment': ['#/example'],
  'relative-json-pointer': ['0/example'],
  byte: ['ZXhhbXBsZQ=='],
}

/** Samples of the schema's format that its length bounds allow, as written and upper-cased. */
function formatSamples(schema: Record<string, any> | undefined, format: string): string[] {
  const samples = FORMAT_SAMPLES[format] ?? []
  return [...samples, ...samples.map((sample) => sample.toUpperCase())].filter(
    (sample) => sample.length >= (schema?.minLength ?? 0) && sample.length <= (schema?.maxLength ?? Infinity),
  )
}

/** Keywords whose failure at a value is mended by generating that value again from its own schema. */
const REGENERATED = new Set([
  'type',
  'enum',
  'const',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minProperties',
])

/**
 * A string for a string that breaks its schema, where one can be made without the faker: a sample of
 * its format that fits its length bounds, or (json-schema-faker's own pattern reader misses much,
 * `\u000A`, nested groups) a string its pattern matches, made with randexp.
 */
function stringFor(
  error: ErrorObject,
  schema: Record<string, any> | undefined,
  budget: GenerationBudget,
  random: () => number,
): string | undefined {
  if (!isPlainObject(schema) || exceedsBudget(schema, budget)) return undefined
  if (!['format', 'minLength', 'maxLength', 'pattern'].includes(error.keyword)) return undefined
  // A sample of the format that the pattern matches too (loket.nl: an upper-case uuid), where both are given.
  const pattern = typeof schema.pattern === 'string' ? compilePattern(schema.pattern, 'u') : undefined
  const sample =
    typeof schema.format === 'string'
      ? formatSamples(schema, schema.format).find((s) => !pattern || pattern.test(s))
      : undefined
  if (sample !== undefined) return sample
  if (error.keyword === 'pattern' && typeof schema.pattern === 'string')
    return stringMatching(schema.pattern, schema, random)
  return undefined
}

/** randexp is CommonJS, and its type declarations claim a default export it does not have. */
const RandExp = createRequire(import.meta.url)('randexp') as new (pattern: RegExp) => {
  max: number
  gen(): string
  randInt(low: number, high: number): number
}

/**
 * A string the pattern matches and the schema's length bounds allow, made with randexp, or
 * `undefined` when it cannot read the pattern (look-behinds) or misses after a few tries.
 */
export function stringMatching(source: string, schema: Record<string, any>, random: () => number): string | undefined {
  const pattern = compilePattern(source, 'u')
  for (const flags of ['u', '']) {
    let generator: InstanceType<typeof RandExp>
    try {
      generator = new RandExp(new RegExp(source, flags))
    } catch {
      continue
    }
    generator.max = 8
    // randexp draws from Math.random unless told: the caller's numbers keep a static body the same on every run.
    generator.randInt = (low, high) => low + Math.floor(random() * (high - low + 1))
    for (let attempt = 0; attempt < 10; attempt++) {
      const text = generator.gen()
      const long = typeof schema.maxLength === 'number' ? text.length <= schema.maxLength : true
      if (pattern.test(text) && long && text.length >= (schema.minLength ?? 0)) return text
    }
  }
  return undefined
}

/** Values generated again in one call, at most. */
const MAX_REGENERATIONS = 64

/** Makes a value for one schema of the description (the faker, as the renderer has it). */
export type Regenerate = (schema: object) => unknown

/**
 * Mends a freshly generated value where the validator's errors (Ajv, `verbose`) say how, in place.
 * json-schema-faker stops at a depth (5) and fills what lies below with placeholders: `null`, `""`,
 * `[]`, `{}`, so deep descriptions (AWS, Stripe, Kubernetes) got bodies that broke their schema.
 * - An array item that breaks its schema, and a `null` the schema does not allow, are left out (as if
 *   generation had stopped one level higher); if that leaves too few items or a required property
 *   missing, the next round generates the array or the property again.
 * - A missing required property, or a value that breaks its type, format, length, pattern, bounds
 *   or enum, is generated again from its own schema (its depth counts from there); a format json-
 *   schema-faker does not know gets a sample of that format.
 * - A property the schema does not declare is left out.
 * - A value whose schema asks for more than the generation budget could hold is left out where it
 *   may be, never made again.
 * @returns whether anything changed (then the value is worth validating again)
 */
export function mendGenerated(
  value: unknown,
  errors: readonly ErrorObject[],
  regenerate?: Regenerate,
  budget: GenerationBudget = GENERATION_BUDGET,
  random: () => number = Math.random,
): boolean {
  let changed = false
  // A schema no finite value meets (a required property that recurses) would otherwise grow the body each round.
  let regenerations = MAX_REGENERATIONS
  const regenerateWithin: Regenerate | undefined =
    regenerate && ((schema) => (regenerations-- > 0 ? regenerate(schema) : undefined))
  const removals: string[][] = []
  for (const error of errors) {
    const tokens = pointerTokens(error.instancePath)
    const current = valueAt(value, tokens)
    const params = error.params as Record<string, any>
    // A string is mended in place, in a list or not: a format sample, or a string its pattern matches.
    const text =
      typeof current === 'string' && tokens.length > 0
        ? stringFor(error, error.parentSchema, budget, random)
        : undefined
    if (text !== undefined) {
      if (text !== current) {
        setAt(value, tokens, text)
        changed = true
      }
      continue
    }
    // An item that breaks its own schema is dropped; one that only lacks or has extra properties is mended.
    const inList =
      tokens.length > 0 &&
      Array.isArray(valueAt(value, tokens.slice(0, -1))) &&
      error.keyword !== 'required' &&
      error.keyword !== 'additionalProperties' &&
      error.keyword !== 'unevaluatedProperties'
    if (
      inList ||
      (current === null &&
        tokens.length > 0 &&
        (error.keyword === 'type' || error.keyword === 'oneOf' || error.keyword === 'anyOf'))
    ) {
      removals.push(tokens)
    } else if (
      (error.keyword === 'additionalProperties' || error.keyword === 'unevaluatedProperties') &&
      isPlainObject(current)
    ) {
      removals.push([...tokens, String(params.additionalProperty ?? params.unevaluatedProperty)])
    } else if (error.keyword === 'required' && isPlainObject(current)) {
      const schema = error.parentSchema?.properties?.[params.missingProperty]
      if (regenerateWithin && regenerations > 0 && schema !== undefined && typeof schema === 'object') {
        defineOwn(current, String(params.missingProperty), regenerateWithin(schema))
        changed = true
      }
    } else if (
      error.keyword === 'format' &&
      typeof current === 'number' &&
      (params.format === 'int32' || params.format === 'int64')
    ) {
      const bound = params.format === 'int32' ? 2 ** 31 - 1 : Number.MAX_SAFE_INTEGER
      setAt(value, tokens, Math.max(-bound, Math.min(bound, Math.trunc(current))))
      changed = tokens.length > 0
    } else if (
      (error.keyword === 'oneOf' || error.keyword === 'anyOf') &&
      current !== null &&
      tokens.length > 0 &&
      Array.isArray(error.schema) &&
      error.schema.length > 0 &&
      regenerateWithin &&
      regenerations > 0
    ) {
      // Overlapping branches (a value matches two) or none matched: generated again from one branch,
      // drawn anew each round, until the whole meets its schema.
      const branches = error.schema.filter((b: unknown) => typeof b === 'object' && b !== null)
      if (branches.length) {
        setAt(value, tokens, regenerateWithin(branches[Math.floor(random() * branches.length)]!))
        changed = true
      }
    } else if (
      REGENERATED.has(error.keyword) &&
      isPlainObject(error.parentSchema) &&
      exceedsBudget(error.parentSchema, budget) &&
      tokens.length > 0
    ) {
      // Beyond the generation budget: left out where it may be; if required, the body cannot be made.
      removals.push(tokens)
    } else if (
      REGENERATED.has(error.keyword) &&
      regenerateWithin &&
      regenerations > 0 &&
      tokens.length > 0 &&
      error.parentSchema &&
      typeof error.parentSchema === 'object'
    ) {
      setAt(value, tokens, regenerateWithin(error.parentSchema))
      changed = true
    }
  }
  // Deepest first, and later array items before earlier ones, so that indexes stay right.
  removals.sort((a, b) => b.length - a.length || compareLast(b, a))
  const seen = new Set<string>()
  for (const tokens of removals) {
    const key = tokens.join('/')
    if (seen.has(key)) continue
    seen.add(key)
    const parent = valueAt(value, tokens.slice(0, -1))
    const last = tokens[tokens.length - 1]!
    if (Array.isArray(parent)) parent.splice(Number(last), 1)
    else if (isPlainObject(parent)) delete parent[last]
    changed = true
  }
  return changed
}

/**
 * The last resort where mending rounds did not meet the schema: every property whose value still
 * breaks its schema is left out. A schema no value meets (vimeo: `type: array` beside an `enum` of
 * strings; visualstudio: `type: integer` beside `enum: ["0 (User)"]`) is often that of an optional
 * property; a required one is then generated again, and fails as before.
 * @returns whether anything was left out
 */
export function leaveOutFailing(
  value: unknown,
  errors: readonly ErrorObject[],
  budget: GenerationBudget = GENERATION_BUDGET,
): boolean {
  let changed = false
  // Deepest first, so that leaving out a parent does not hide a child's path. What fails for the
  // generation budget stays, so the answer names it (`generation_budget`).
  const paths = errors
    .filter((error) => !(isPlainObject(error.parentSchema) && exceedsBudget(error.parentSchema, budget)))
    .map((error) => pointerTokens(error.instancePath))
    .filter((tokens) => tokens.length > 0)
  paths.sort((a, b) => b.length - a.length)
  for (const tokens of paths) {
    const parent = valueAt(value, tokens.slice(0, -1))
    const last = tokens[tokens.length - 1]!
    if (isPlainObject(parent) && Object.hasOwn(parent, last)) {
      delete parent[last]
      changed = true
    }
  }
  return changed
}

function compareLast(a: string[], b: string[]): number {
  return Number(a[a.length - 1]) - Number(b[b.length - 1]) || 0
}

function valueAt(root: unknown, tokens: string[]): unknown {
  let node = root
  for (const token of tokens) {
    if (node === null || typeof node !== 'object') return undefined
    node = (node as Record<string, unknown>)[token]
  }
  return node
}

function setAt(root: unknown, tokens: string[], value: unknown): void {
  const parent = valueAt(root, tokens.slice(0, -1))
  if (parent && typeof parent === 'object')
    defineOwn(parent as Record<string, unknown>, tokens[tokens.length - 1]!, value)
}

/** An own data property, even for a name such as `__proto__` that plain assignment would treat as the prototype. */
function defineOwn(target: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(target, name, { value, writable: true, enumerable: true, configurable: true })
}
