import type { ValidateFunction } from 'ajv'
import type { Violation } from '../errors.js'
import type { RequestData } from '../request.js'
import type { ParameterDescription, ParameterLocation } from '../openapi/operations.js'
import { type Ajv, compileOnFirstUse } from './create-ajv.js'
import { fieldPath, toViolations } from './violations.js'
import { rawLiterals } from './exact-integers.js'

/** A parameter's value as read from the request, before coercion: text, a list, or named texts. */
type RawValue = string | string[] | { [name: string]: string | string[] }

/** Why a parameter that was sent cannot be read (reported as a violation of that parameter). */
class Unreadable {
  constructor(readonly message: string) {}
}

/** Sent with an empty value that `allowEmptyValue` accepts: present, and not validated. */
const EMPTY_ALLOWED = Symbol('empty value allowed')

type ReadOutcome = RawValue | Unreadable | typeof EMPTY_ALLOWED | undefined

/** Reads one parameter; chosen at start-up from its location, style, explode and shape. */
type Reader = (request: RequestData, pathParams: Record<string, string>) => ReadOutcome

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
 * Compiles one object schema per location, and one reader per parameter. The Ajv given here
 * coerces types (`"5"` → 5, a lone value → a one-item array), since every parameter arrives as text.
 * @returns `undefined` when the operation declares no parameter.
 */
export function compileParameters(
  coercingAjv: Ajv,
  parameters: readonly ParameterDescription[],
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
      parameters: here.map((p) => ({ key: keyOf(p), read: createReader(p, here) })),
      validate: compileOnFirstUse(() => coercingAjv.compile({ type: 'object', properties, required })),
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
    const values: Record<string, RawValue> = {}
    const raw: Record<string, RawValue> = {}
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

function copyOf(value: RawValue): RawValue {
  if (typeof value === 'string') return value
  if (Array.isArray(value)) return [...value]
  const copy: Record<string, string | string[]> = {}
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

// ---------------------------------------------------------------------------------------------
// Readers. Each serialization of OpenAPI's style table, decided once per parameter.
// ---------------------------------------------------------------------------------------------

function createReader(parameter: ParameterDescription, siblings: readonly ParameterDescription[]): Reader {
  switch (parameter.in) {
    case 'path':
      return createPathReader(parameter)
    case 'query':
      return createQueryReader(parameter, siblings)
    case 'header':
      return createHeaderReader(parameter)
    case 'cookie':
      return createCookieReader(parameter)
  }
}

const SEPARATORS = { form: ',', spaceDelimited: ' ', pipeDelimited: '|' } as const

function createQueryReader(parameter: ParameterDescription, siblings: readonly ParameterDescription[]): Reader {
  const { name, shape, style, explode } = parameter
  const separator = SEPARATORS[style as keyof typeof SEPARATORS] ?? ','
  // allowReserved: the value is sent as written, so a `+` is a plus sign, not a form-encoded space.
  const queryOf = parameter.allowReserved
    ? (request: RequestData) => new URLSearchParams((request.rawQuery ?? '').replace(/\+/g, '%2B'))
    : (request: RequestData) => request.query()
  if (shape === 'object' && style === 'deepObject') return (request) => readDeepObject(queryOf(request), name)
  if (shape === 'object' && explode) {
    // Exploded form objects send each property as its own key: `?color=red&size=L`.
    const claimed = new Set(siblings.filter((s) => s !== parameter).map((s) => s.name))
    const takes = parameter.openObject ? (key: string) => !claimed.has(key) && !isDeepKeyOf(key, siblings) : undefined
    return (request) => readExplodedQueryObject(queryOf(request), parameter.properties, takes)
  }
  const emptyCheck = (text: string) =>
    text !== '' ? undefined : parameter.allowEmptyValue ? EMPTY_ALLOWED : EMPTY_REFUSED
  if (shape === 'array' && explode) {
    return (request) => {
      const query = queryOf(request)
      if (!query.has(name)) return undefined
      const items = query.getAll(name)
      return items.every((item) => item === '') ? emptyCheck('') : items
    }
  }
  const parse =
    shape === 'array'
      ? (text: string) => text.split(separator)
      : shape === 'object'
        ? (text: string) => pairsOf(text.split(separator))
        : undefined
  return (request) => {
    const text = queryOf(request).get(name)
    if (text === null) return undefined
    return emptyCheck(text) ?? (parse ? parse(text) : text)
  }
}

const EMPTY_REFUSED = new Unreadable('must not be empty (the parameter does not set allowEmptyValue)')

function isDeepKeyOf(key: string, parameters: readonly ParameterDescription[]): boolean {
  return parameters.some((p) => p.style === 'deepObject' && key.startsWith(`${p.name}[`))
}

/** `?filter[color]=red&filter[size]=L` → `{ color: 'red', size: 'L' }`; a repeated key gives a list. */
function readDeepObject(query: URLSearchParams, name: string): ReadOutcome {
  const prefix = `${name}[`
  let found: Record<string, string | string[]> | undefined
  for (const [key, value] of query) {
    if (!key.startsWith(prefix) || !key.endsWith(']')) continue
    const property = key.slice(prefix.length, -1)
    if (property.includes('[') || property.includes(']'))
      return new Unreadable(`has a nested key "${key}"; deepObject takes one level of properties`)
    found ??= {}
    const previous = found[property]
    found[property] =
      previous === undefined ? value : Array.isArray(previous) ? [...previous, value] : [previous, value]
  }
  return found
}

function readExplodedQueryObject(
  query: URLSearchParams,
  properties: readonly string[],
  takes?: (key: string) => boolean,
): ReadOutcome {
  let found: Record<string, string | string[]> | undefined
  const add = (key: string) => {
    const values = query.getAll(key)
    found ??= {}
    found[key] = values.length === 1 ? values[0]! : values
  }
  for (const property of properties) if (query.has(property)) add(property)
  if (takes) for (const key of new Set(query.keys())) if (takes(key) && !properties.includes(key)) add(key)
  return found
}

function createHeaderReader({ name, shape, explode }: ParameterDescription): Reader {
  const header = name.toLowerCase()
  // Headers allow white space after commas (RFC 9110 lists), so items are trimmed.
  const items = (text: string) => text.split(',').map((item) => item.trim())
  const parse = simpleParser(shape, explode, items)
  return (request) => {
    const text = request.header(header)
    return text === undefined ? undefined : parse(text)
  }
}

function createCookieReader({ name, shape, explode, properties }: ParameterDescription): Reader {
  if (shape === 'object' && explode) {
    // Exploded form objects send each property as its own cookie.
    return (request) => {
      let found: Record<string, string> | undefined
      for (const property of properties) {
        const value = request.cookie(property)
        if (value !== undefined) (found ??= {})[property] = value
      }
      return found
    }
  }
  // A cookie is read once by name, so an array is always the comma form (repeated cookies cannot be told apart).
  const parse =
    shape === 'array'
      ? (text: string) => text.split(',')
      : shape === 'object'
        ? (text: string) => pairsOf(text.split(','))
        : (text: string) => text
  return (request) => {
    const text = request.cookie(name)
    return text === undefined ? undefined : parse(text)
  }
}

/**
 * Path parameters come percent-encoded. Each piece is decoded after splitting, so an encoded
 * delimiter (`%2C`) is data, not a separator.
 */
function createPathReader({ name, style, shape, explode }: ParameterDescription): Reader {
  const split = (separator: string) => (text: string) => text.split(separator).map(decode)
  const splitAssignments = (separator: string) => (text: string) => text.split(separator).map(decodeAssignment)
  let parse: (text: string) => ReadOutcome
  if (style === 'label') {
    const separator = explode ? '.' : ','
    const inner = simpleParser(
      shape,
      explode,
      shape === 'object' && explode ? splitAssignments(separator) : split(separator),
      decode,
    )
    parse = (text) =>
      text.startsWith('.') ? inner(text.slice(1)) : new Unreadable('must be written in label style (a leading ".")')
  } else if (style === 'matrix') {
    parse = matrixParser(name, shape, explode)
  } else {
    parse = simpleParser(shape, explode, shape === 'object' && explode ? splitAssignments(',') : split(','), decode)
  }
  return (_request, pathParams) => {
    const text = pathParams[name]
    if (text === undefined) return undefined
    try {
      return parse(text)
    } catch (error) {
      if (error instanceof URIError) return new Unreadable('is not valid percent-encoding')
      throw error
    }
  }
}

/** simple style (and the inside of label): `3,4,5`; objects `role,admin,x,1`, exploded `role=admin,x=1`. */
function simpleParser(
  shape: ParameterDescription['shape'],
  explode: boolean,
  items: (text: string) => string[],
  decodeOne: (text: string) => string = (text) => text,
): (text: string) => ReadOutcome {
  if (shape === 'array') return items
  if (shape === 'primitive') return decodeOne
  return explode ? (text) => assignmentsOf(items(text)) : (text) => pairsOf(items(text))
}

/** `;id=5`, `;id=3,4,5`, `;id=3;id=4`, `;id=role,admin`, `;role=admin;x=1` (the empty value is `;id`). */
function matrixParser(
  name: string,
  shape: ParameterDescription['shape'],
  explode: boolean,
): (text: string) => ReadOutcome {
  const prefix = `;${name}=`
  const notMatrix = new Unreadable(`must be written in matrix style (";${name}=...")`)
  if (shape === 'object' && explode) {
    return (text) => (text.startsWith(';') ? assignmentsOf(text.slice(1).split(';').map(decodeAssignment)) : notMatrix)
  }
  if (shape === 'array' && explode) {
    return (text) => {
      const parts = text.slice(1).split(';')
      if (!text.startsWith(';') || parts.some((p) => !p.startsWith(`${name}=`))) return notMatrix
      return parts.map((p) => decode(p.slice(name.length + 1)))
    }
  }
  return (text) => {
    if (text === `;${name}`) return shape === 'primitive' ? '' : shape === 'array' ? [] : {}
    if (!text.startsWith(prefix)) return notMatrix
    const value = text.slice(prefix.length)
    if (shape === 'primitive') return decode(value)
    const items = value.split(',').map(decode)
    return shape === 'array' ? items : pairsOf(items)
  }
}

/** Decodes both sides of `name=value` while keeping the `=` that separates them. */
function decodeAssignment(text: string): string {
  const equals = text.indexOf('=')
  return equals === -1 ? decode(text) : `${decode(text.slice(0, equals))}=${decode(text.slice(equals + 1))}`
}

/** `['role', 'admin', 'x', '1']` → `{ role: 'admin', x: '1' }` */
function pairsOf(items: string[]): ReadOutcome {
  if (items.length % 2 !== 0) return new Unreadable('must be a list of name,value pairs')
  const object: Record<string, string> = {}
  for (let i = 0; i < items.length; i += 2) object[items[i]!] = items[i + 1]!
  return object
}

/** `['role=admin', 'x=1']` → `{ role: 'admin', x: '1' }` */
function assignmentsOf(items: string[]): ReadOutcome {
  const object: Record<string, string> = {}
  for (const item of items) {
    const equals = item.indexOf('=')
    if (equals === -1) return new Unreadable('must be a list of name=value pairs')
    object[item.slice(0, equals)] = item.slice(equals + 1)
  }
  return object
}

function decode(text: string): string {
  return text.includes('%') ? decodeURIComponent(text) : text
}
