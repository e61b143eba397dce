import type { ErrorObject } from 'ajv'
import { pointerTokens } from '../openapi/resolve-ref.js'
import { type GenerationBudget, GENERATION_BUDGET, exceedsBudget } from './generation-budget.js'
import { isPlainObject } from '../internal/plain-object.js'
import { valueAt } from '../internal/value-at.js'
import { stringFor } from './schema-strings.js'

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

function compareLast(a: string[], b: string[]): number {
  return Number(a[a.length - 1]) - Number(b[b.length - 1]) || 0
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
