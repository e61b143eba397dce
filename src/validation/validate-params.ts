import type { ValidateFunction } from 'ajv'
import type { Violation } from '../errors/index.js'
import type { RequestData } from '../common/request.js'
import type { ParameterDescription, ParameterLocation } from '../openapi/operations.js'
import { type Ajv, compileOnFirstUse } from './create-ajv.js'
import { fieldPath, toViolations } from './violations.js'
import { rawLiterals } from './exact-integers.js'
import { type Reader, createReader } from './parameter-readers.js'
import { EMPTY_ALLOWED, type JsonValue, Unreadable } from './parameter-styles.js'
import { essenceOf, isJsonType } from '../internal/media-type.js'

interface CompiledParameter {
  /** The name in violation paths and in the validated object (headers lower-cased). */
  key: string
  read: Reader
}

interface CompiledLocation {
  location: ParameterLocation
  parameters: CompiledParameter[]
  validate: ValidateFunction
}

/** Path, query, header and cookie parameters of one operation. */
export type ParameterValidator = CompiledLocation[]

/**
 * Compiles one object schema per location, and one reader per parameter. `coercingAjv` coerces types
 * (`"5"` → 5, a lone value → a one-item array), since parameters arrive as text; `exactAjv` does not,
 * for a `querystring` read from JSON text, whose values are typed already (`{"id":"5"}` is no integer).
 * @returns `undefined` when the operation declares no parameter.
 */
export function compileParameters(
  coercingAjv: Ajv,
  parameters: readonly ParameterDescription[],
  exactAjv: Ajv = coercingAjv,
): ParameterValidator | undefined {
  const compiled: CompiledLocation[] = []
  for (const location of LOCATIONS) {
    const here = parameters.filter((p) => p.in === location)
    if (here.length === 0) continue
    const typed = location === 'querystring' && here.some((p) => isJsonType(essenceOf(p.mediaType ?? '')))
    const ajv = typed ? exactAjv : coercingAjv
    const properties = Object.fromEntries(
      here.map((p) => [keyOf(p), p.schemaPointer ? { $ref: `mock:spec#${p.schemaPointer}` } : {}]),
    )
    const required = here.filter((p) => p.required).map(keyOf)
    compiled.push({
      location,
      parameters: here.map((p) => ({ key: keyOf(p), read: createReader(p, here) })),
      validate: compileOnFirstUse(() => ajv.compile({ type: 'object', properties, required })),
    })
  }
  return compiled.length ? compiled : undefined
}

/** `querystring` is OpenAPI 3.2's whole query string as one value; it is validated only where declared. */
const LOCATIONS = ['path', 'query', 'querystring', 'header', 'cookie'] as const

/** Reads each declared parameter as its style says, then validates them all. */
export function validateParameters(
  validator: ParameterValidator,
  request: RequestData,
  pathParams: Record<string, string>,
): Violation[] {
  const violations: Violation[] = []
  for (const { location, parameters, validate } of validator) {
    const values: Record<string, JsonValue> = {}
    const raw: Record<string, JsonValue> = {}
    const present = new Set<string>()
    for (const { key, read } of parameters) {
      const value = read(request, pathParams)
      if (value === undefined) continue
      present.add(key)
      if (value instanceof Unreadable) violations.push({ path: fieldPath(location, key), message: value.message })
      else if (value !== EMPTY_ALLOWED) {
        values[key] = value
        // Ajv coerces in place; the text as sent is kept for exact int64 checks and the decimal rule.
        raw[key] = copyOf(value)
      }
    }
    if (!validate.call(rawLiterals(raw), values)) {
      // A parameter that was sent but not validated is either reported already or accepted as empty.
      const errors = validate.errors?.filter(
        (e) => !(e.keyword === 'required' && present.has(e.params.missingProperty)),
      )
      violations.push(...toViolations(location, errors))
    }
    violations.push(...nonDecimalNumbers(location, raw, values))
  }
  return violations
}

/** A copy as deep as coercion changes a parameter's value: the value, its items, its properties' lists. */
function copyOf(value: JsonValue): JsonValue {
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return [...value]
  const copy: Record<string, JsonValue> = {}
  for (const name in value) copy[name] = Array.isArray(value[name]) ? [...value[name]] : value[name]!
  return copy
}

const DECIMAL = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/

/**
 * Ajv coerces any text that JavaScript's `+text` reads as a number (`0x10`, ` 5`, `0b1`).
 * A parameter's number must be written as JSON writes numbers.
 */
function nonDecimalNumbers(
  location: ParameterLocation,
  raw: Record<string, unknown>,
  coerced: Record<string, unknown>,
): Violation[] {
  const found: Violation[] = []
  const check = (text: unknown, value: unknown, segments: Array<string | number>) => {
    if (typeof value === 'number' && typeof text === 'string' && !DECIMAL.test(text)) {
      found.push({ path: fieldPath(location, ...segments), message: 'must be a number written in decimal' })
    } else if (value !== null && typeof value === 'object' && text !== null && typeof text === 'object') {
      for (const [k, v] of Object.entries(value))
        check((text as any)[k], v, [...segments, Array.isArray(value) ? Number(k) : k])
    }
  }
  for (const [key, value] of Object.entries(coerced)) check(raw[key], value, [key])
  return found
}

function keyOf(parameter: ParameterDescription): string {
  return parameter.in === 'header' ? parameter.name.toLowerCase() : parameter.name
}
