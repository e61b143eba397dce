import type { ValidateFunction } from 'ajv'
import type { Violation } from '../errors.js'
import type { RequestData } from '../request.js'
import type { ParameterDescription } from '../spec/operations.js'
import { type Ajv, fieldPath, toViolations } from './create-ajv.js'
import { rawLiterals } from './exact-integers.js'

type Location = 'path' | 'query' | 'header' | 'cookie'

interface CompiledLocation {
  location: Location
  parameters: Array<ParameterDescription & { isArray: boolean }>
  validate: ValidateFunction
}

/** Path, query, header and cookie parameters of one operation; `undefined` when it declares none. */
export type ParameterValidator = CompiledLocation[]

/**
 * Compiles one object schema per location. The Ajv given here coerces types (`"5"` → 5), since
 * every parameter arrives as text.
 */
export function compileParameters(
  coercingAjv: Ajv,
  parameters: readonly ParameterDescription[],
  isArraySchema: (pointer: string) => boolean,
): ParameterValidator | undefined {
  const compiled: CompiledLocation[] = []
  for (const location of ['path', 'query', 'header', 'cookie'] as const) {
    const here = parameters.filter((p) => p.in === location)
    if (here.length === 0) continue
    const properties = Object.fromEntries(
      here.map((p) => [keyOf(p), p.schemaPointer ? { $ref: `mock:spec#${p.schemaPointer}` } : {}]),
    )
    const required = here.filter((p) => p.required).map(keyOf)
    compiled.push({
      location,
      parameters: here.map((p) => ({ ...p, isArray: p.schemaPointer ? isArraySchema(p.schemaPointer) : false })),
      validate: coercingAjv.compile({ type: 'object', properties, required }),
    })
  }
  return compiled.length ? compiled : undefined
}

/** Reads each declared parameter as its style says, then validates them all. */
export function validateParameters(
  validator: ParameterValidator,
  request: RequestData,
  pathParams: Record<string, string>,
): Violation[] {
  const violations: Violation[] = []
  for (const { location, parameters, validate } of validator) {
    const values: Record<string, unknown> = {}
    const unreadable = new Set<string>()
    for (const parameter of parameters) {
      const before = violations.length
      const value = readParameter(parameter, request, pathParams, violations)
      if (value !== undefined) values[keyOf(parameter)] = value
      else if (violations.length > before) unreadable.add(keyOf(parameter))
    }
    // Ajv coerces in place; the text as sent is kept for exact int64 checks and the decimal rule.
    const raw = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, Array.isArray(v) ? [...v] : v]))
    if (!validate.call(rawLiterals(raw), values)) {
      // A parameter that was sent but could not be read is already reported: not "required" as well.
      const errors = validate.errors?.filter((e) => !(e.keyword === 'required' && unreadable.has(e.params.missingProperty)))
      violations.push(...toViolations(location, errors))
    }
    violations.push(...nonDecimalNumbers(location, raw, values))
  }
  return violations
}

const DECIMAL = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/

/**
 * Ajv coerces any text that JavaScript's `+text` reads as a number (`0x10`, ` 5`, `1_0` is refused,
 * but `0b1` is not). A parameter's number must be written as JSON writes numbers.
 */
function nonDecimalNumbers(location: Location, raw: Record<string, unknown>, coerced: Record<string, unknown>): Violation[] {
  const found: Violation[] = []
  const check = (text: unknown, value: unknown, path: string) => {
    if (typeof value === 'number' && typeof text === 'string' && !DECIMAL.test(text)) {
      found.push({ path, message: 'must be a number written in decimal' })
    }
  }
  for (const [key, value] of Object.entries(coerced)) {
    const text = raw[key]
    if (Array.isArray(value) && Array.isArray(text)) value.forEach((item, i) => check(text[i], item, fieldPath(location, key, i)))
    else check(text, value, fieldPath(location, key))
  }
  return found
}

function readParameter(
  parameter: ParameterDescription & { isArray: boolean },
  request: RequestData,
  pathParams: Record<string, string>,
  violations: Violation[],
): string | string[] | undefined {
  switch (parameter.in) {
    case 'path': {
      const raw = pathParams[parameter.name]
      if (raw === undefined) return undefined
      try {
        return splitList(parameter, decodeURIComponent(raw), ',')
      } catch {
        violations.push({ path: fieldPath('path', parameter.name), message: 'is not valid percent-encoding' })
        return undefined
      }
    }
    case 'query': {
      const query = request.query()
      if (!query.has(parameter.name)) return undefined
      // form style, explode true (the default): an array is the key repeated.
      if (parameter.isArray && parameter.explode !== false) return query.getAll(parameter.name)
      return splitList(parameter, query.get(parameter.name)!, parameter.style === 'spaceDelimited' ? ' ' : parameter.style === 'pipeDelimited' ? '|' : ',')
    }
    case 'header': {
      const value = request.header(parameter.name.toLowerCase())
      return value === undefined ? undefined : splitList(parameter, value, ',')
    }
    case 'cookie': {
      const value = request.cookie(parameter.name)
      return value === undefined ? undefined : splitList(parameter, value, ',')
    }
  }
}

function splitList(parameter: { isArray: boolean }, value: string, separator: string): string | string[] {
  return parameter.isArray ? value.split(separator).map((item) => item.trim()) : value
}

function keyOf(parameter: ParameterDescription): string {
  return parameter.in === 'header' ? parameter.name.toLowerCase() : parameter.name
}
