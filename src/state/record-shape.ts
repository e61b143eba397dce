import { flattenSchema } from '../openapi/flatten-schema.js'
import { derefSchema } from '../openapi/resolve-ref.js'
import { isLosslessNumber } from 'lossless-json'
import { isPlainObject } from '../internal/plain-object.js'
import type { ValidateFunction } from 'ajv'
import { pointerTokens } from '../openapi/resolve-ref.js'
import { carryExact, plainValueOf } from '../internal/exact-values.js'
import type { StoredRecord } from './record-store.js'

/** What a response schema declares of a record: the fields it takes, and those it requires. */
export interface RecordShape {
  /**
   * Declared property names; `undefined` when the schema says nothing of them (no `properties`, open
   * to any): the whole record is answered. `[]` for a closed empty object (`additionalProperties: false`).
   */
  fields: string[] | undefined
  required: string[]
  /** The schema can be an object: a record is answered in it (GitHub's `POST /user/emails` answers an array). */
  holdsObject: boolean
}

/** The shape of an object schema (its `allOf`/`anyOf`/`oneOf` parts together). */
export function shapeOf(document: unknown, schema: unknown): RecordShape {
  const fields = new Set<string>()
  const required = new Set<string>()
  let declares = false
  const parts = flattenSchema(document, schema)
  // The schema itself says what it holds; its oneOf branches may differ (one an object will do).
  const rootTypes: unknown[] = Array.isArray(parts[0]?.type)
    ? parts[0].type
    : parts[0]?.type === undefined
      ? []
      : [parts[0].type]
  const holdsObject = rootTypes.length === 0 || rootTypes.includes('object')
  for (const part of parts) {
    if (isPlainObject(part.properties)) declares = true
    if (part.additionalProperties === false) declares = true
    for (const name of Object.keys(part.properties ?? {})) fields.add(name)
    if (Array.isArray(part.required)) for (const name of part.required) if (typeof name === 'string') required.add(name)
  }
  return { fields: declares ? [...fields] : undefined, required: [...required], holdsObject }
}

/** The schema of an array's items (`items` of the schema or of one of its parts). */
export function itemsSchemaOf(document: unknown, schema: unknown): unknown {
  for (const part of flattenSchema(document, schema))
    if (part.items !== undefined) return derefSchema(document, part.items)
  return undefined
}

/** The schema of a property (`properties[name]` of the schema or of one of its parts). */
export function propertySchemaOf(document: unknown, schema: unknown, name: string): unknown {
  for (const part of flattenSchema(document, schema))
    if (part.properties?.[name] !== undefined) return derefSchema(document, part.properties[name])
  return undefined
}

/**
 * A record as the response declares it: the declared fields it has, and required ones it lacks from
 * `base` (a sample of the schema); undeclared ones are left out (the record keeps them).
 */
export function projectRecord(record: StoredRecord, shape: RecordShape, base: unknown): Record<string, unknown> {
  if (!shape.fields) return carryExact(record, { ...record })
  const projected: Record<string, unknown> = {}
  for (const field of shape.fields) if (record[field] !== undefined) projected[field] = record[field]
  fillRequired(projected, shape, base)
  return carryExact(record, projected)
}

/**
 * The record with the fields the response requires and it lacks (`shape.required`, but the key
 * field the store assigns), taken from `base`: stored with it, so that every later read answers the same.
 */
export function completeRecord(record: StoredRecord, shape: RecordShape, base: unknown, idField: string): StoredRecord {
  let completed: Record<string, unknown> | undefined
  for (const field of shape.required) {
    if (field === idField || record[field] !== undefined || !hasField(base, field)) continue
    completed ??= carryExact(record, { ...record })
    completed[field] = (base as Record<string, unknown>)[field]
  }
  return completed ?? record
}

function fillRequired(projected: Record<string, unknown>, shape: RecordShape, base: unknown): void {
  for (const field of shape.required)
    if (projected[field] === undefined && hasField(base, field))
      projected[field] = (base as Record<string, unknown>)[field]
}

function hasField(base: unknown, field: string): boolean {
  return base !== null && typeof base === 'object' && (base as Record<string, unknown>)[field] !== undefined
}

/** A record with a field holding an object or an array (an exact integer is a number). */
export function holdsNested(record: Record<string, unknown>): boolean {
  for (const key in record) {
    const value = record[key]
    if (value !== null && typeof value === 'object' && !isLosslessNumber(value)) return true
  }
  return false
}

/**
 * A projected record whose fields break the response schema where the request's schema declared them
 * otherwise (GitHub's `POST /repos/{owner}/{repo}/pulls` takes `base` as a branch name and answers it
 * as an object): each breaking field is taken from `base` (the schema's sample), or left out where it
 * has none. `undefined` when the record as a whole breaks it (a root `oneOf` no record meets): the
 * declared body answers instead. What still breaks is told as any answer's violations are.
 */
export function fitRecord(
  schema: { validate?: ValidateFunction },
  projected: Record<string, unknown>,
  base: unknown,
): Record<string, unknown> | undefined {
  const { validate } = schema
  if (!validate || validate(plainValueOf(projected))) return projected
  const breaking = new Set<string>()
  for (const { instancePath } of validate.errors ?? []) {
    const field = pointerTokens(instancePath)[0]
    if (field === undefined) return undefined
    breaking.add(field)
  }
  const fitted = carryExact(projected, { ...projected })
  for (const field of breaking) {
    if (hasField(base, field)) fitted[field] = (base as Record<string, unknown>)[field]
    else delete fitted[field]
  }
  return fitted
}

/** The body without the server's fields (see `serverFieldsOf` in `pipeline/data.ts`), as a new object where it changes. */
export function withoutServerFields(body: StoredRecord, fields: readonly string[]): StoredRecord {
  if (!fields.some((field) => field in body)) return body
  const owned = carryExact(body, { ...body })
  for (const field of fields) delete owned[field]
  return owned
}
