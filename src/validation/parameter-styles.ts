import type { ParameterDescription } from '../openapi/operations.js'

/** A parameter's value as read from the request, before coercion: text, a list, or named texts. */
export type RawValue = string | string[] | { [name: string]: string | string[] }

/** Why a parameter that was sent cannot be read (reported as a violation of that parameter). */
export class Unreadable {
  constructor(readonly message: string) {}
}

/** Sent with an empty value that `allowEmptyValue` accepts: present, and not validated. */
export const EMPTY_ALLOWED = Symbol('empty value allowed')

/** A value read from JSON text (OpenAPI 3.2's `querystring` of a JSON media type): typed already, not coerced. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [name: string]: JsonValue }

/** What a parameter reads as: text (most), JSON data (a JSON `querystring`), or why it cannot be read. */
export type ReadOutcome = RawValue | JsonValue | Unreadable | typeof EMPTY_ALLOWED | undefined

/** simple style (and the inside of label): `3,4,5`; objects `role,admin,x,1`, exploded `role=admin,x=1`. */
export function simpleParser(
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
export function matrixParser(
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
export function decodeAssignment(text: string): string {
  const equals = text.indexOf('=')
  return equals === -1 ? decode(text) : `${decode(text.slice(0, equals))}=${decode(text.slice(equals + 1))}`
}

/** `['role', 'admin', 'x', '1']` → `{ role: 'admin', x: '1' }` */
export function pairsOf(items: string[]): ReadOutcome {
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

export function decode(text: string): string {
  return text.includes('%') ? decodeURIComponent(text) : text
}
