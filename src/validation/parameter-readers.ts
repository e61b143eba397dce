import type { RequestData } from '../common/request.js'
import { essenceOf, isJsonType } from '../internal/media-type.js'
import type { ParameterDescription } from '../openapi/operations.js'
import {
  EMPTY_ALLOWED,
  type JsonValue,
  type ReadOutcome,
  Unreadable,
  decode,
  decodeAssignment,
  matrixParser,
  pairsOf,
  simpleParser,
} from './parameter-styles.js'
import { MAX_JSON_DEPTH, depthViolation } from './json-depth.js'

/** Reads one parameter; chosen at start-up from its location, style, explode and shape. */
export type Reader = (request: RequestData, pathParams: Record<string, string>) => ReadOutcome

// ---------------------------------------------------------------------------------------------
// Readers. Each serialization of OpenAPI's style table, decided once per parameter.
// ---------------------------------------------------------------------------------------------

export function createReader(parameter: ParameterDescription, siblings: readonly ParameterDescription[]): Reader {
  switch (parameter.in) {
    case 'path':
      return createPathReader(parameter)
    case 'query':
      return createQueryReader(parameter, siblings)
    case 'querystring':
      return createQuerystringReader(parameter)
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

/**
 * OpenAPI 3.2's `in: querystring` (#31 §1): the whole query string is one value, read as its media
 * type says. Form-encoded, each key is a property (a repeated key a list); JSON, the query string is
 * the percent-encoded JSON text; any other type, the percent-decoded text. No query string at all is
 * the parameter absent.
 */
function createQuerystringReader({ mediaType = '' }: ParameterDescription): Reader {
  const essence = essenceOf(mediaType)
  if (essence === 'application/x-www-form-urlencoded')
    return (request) => (request.rawQuery === '' ? undefined : readFormQuery(request.query()))
  const json = isJsonType(essence)
  return (request) => {
    if (request.rawQuery === '') return undefined
    let text: string
    try {
      text = decodeURIComponent(request.rawQuery)
    } catch {
      return NOT_PERCENT_ENCODED
    }
    return json ? readJsonText(text) : text
  }
}

const NOT_PERCENT_ENCODED = new Unreadable('is not valid percent-encoding')

/** Each key of a form-encoded query string a property; a repeated key a list. */
function readFormQuery(query: URLSearchParams): Record<string, string | string[]> {
  const found = new Map<string, string | string[]>()
  for (const [key, value] of query) {
    const previous = found.get(key)
    found.set(key, previous === undefined ? value : Array.isArray(previous) ? [...previous, value] : [previous, value])
  }
  // fromEntries defines own properties, so a key named `__proto__` stays a key.
  return Object.fromEntries(found)
}

/** JSON text as data, bounded in nesting as a JSON body is (a deep value overflowed the validator's stack, #12). */
function readJsonText(text: string): JsonValue | Unreadable {
  const tooDeep = depthViolation('', text, MAX_JSON_DEPTH)
  if (tooDeep) return new Unreadable(`is nested too deep: its ${tooDeep.path} ${tooDeep.message}`)
  try {
    return JSON.parse(text) as JsonValue
  } catch (error) {
    return new Unreadable(`is not valid JSON (${(error as Error).message})`)
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
