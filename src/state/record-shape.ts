import { flattenSchema } from '../openapi/flatten-schema.js'
import { derefSchema } from '../openapi/resolve-ref.js'
import { isLosslessNumber } from 'lossless-json'
import { carryExact } from './record-values.js'
import type { StoredRecord } from './record-store.js'

/** What a response schema declares of a record: the fields it takes, and those it requires. */
export interface RecordShape {
  /** Declared property names; `undefined` when the schema declares none (the whole record is answered). */
  fields: string[] | undefined
  required: string[]
}

/** The shape of an object schema (its `allOf`/`anyOf`/`oneOf` parts together). */
export function shapeOf(document: unknown, schema: unknown): RecordShape {
  const fields = new Set<string>()
  const required = new Set<string>()
  for (const part of flattenSchema(document, schema)) {
    for (const name of Object.keys(part.properties ?? {})) fields.add(name)
    if (Array.isArray(part.required)) for (const name of part.required) if (typeof name === 'string') required.add(name)
  }
  return { fields: fields.size ? [...fields] : undefined, required: [...required] }
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

/** The body without the server's fields (see `serverFieldsOf` in `pipeline/data.ts`), as a new object where it changes. */
export function withoutServerFields(body: StoredRecord, fields: readonly string[]): StoredRecord {
  if (!fields.some((field) => field in body)) return body
  const owned = carryExact(body, { ...body })
  for (const field of fields) delete owned[field]
  return owned
}
