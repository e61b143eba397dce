/**
 * Values that hold an integer beyond 2^53 (a `LosslessNumber`), marked so that they are written with
 * lossless-json and every other value with `JSON.stringify`: the records of `--stateful`, and the
 * answers made of them.
 */
import {
  LosslessNumber,
  isLosslessNumber,
  isSafeNumber,
  parse as parseLossless,
  stringify as stringifyLossless,
} from 'lossless-json'

/** Records holding an integer beyond 2^53 (a `LosslessNumber`): written with lossless-json, every other with `JSON.stringify`. */
const exactRecords = new WeakSet<object>()

/** Marks a value made here as holding an exact integer. */
export function markExact<T extends object>(value: T): T {
  exactRecords.add(value)
  return value
}

/** The request body again, read so that integers beyond 2^53 keep every digit: only when the parsed body holds one that rounding may have changed. */
export function exactBodyOf(value: unknown, text: () => string): unknown {
  if (!holds(value, isUnsafeInteger)) return value
  try {
    const exact = parseLossless(text(), undefined, (literal) =>
      isSafeNumber(literal) ? Number(literal) : new LosslessNumber(literal),
    ) as object
    exactRecords.add(exact)
    return exact
  } catch {
    return value
  }
}

/** Marks a record read from the state file or given by a test, if it holds an exact integer. */
export function markIfExact<T>(record: T): T {
  if (record !== null && typeof record === 'object' && holds(record, isLosslessNumber)) exactRecords.add(record)
  return record
}

/** Carries the mark to a record made from a marked one (a projection, a merge, a completion). */
export function carryExact<T extends object>(from: object, to: T): T {
  if (exactRecords.has(from)) exactRecords.add(to)
  return to
}

/** A JSON value holding, at any depth up to 64, a value `found` says yes to. */
function holds(value: unknown, found: (value: unknown) => boolean, depth = 0): boolean {
  if (found(value)) return true
  if (value === null || typeof value !== 'object' || depth > 64) return false
  for (const member of Object.values(value)) if (holds(member, found, depth + 1)) return true
  return false
}

const isUnsafeInteger = (value: unknown) =>
  typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value)

/**
 * A record, or an answer made of records, as JSON text (exact integers as written), and as a validator
 * reads it (`plainValueOf`), the one judged once.
 */
export function serializeRecord(value: unknown): { text: string; plain: unknown } {
  if (!isExactValue(value)) return { text: JSON.stringify(value), plain: value }
  const text = stringifyLossless(value)!
  return { text, plain: JSON.parse(text) }
}

/** The value as a validator reads it: exact integers as numbers (the schema judges the type; the text keeps the digits). */
export function plainValueOf(value: unknown): unknown {
  return isExactValue(value) ? JSON.parse(stringifyLossless(value)!) : value
}

/** A marked record, or a list answer holding one: the array itself, or a wrapper's array (marks are on records only). */
function isExactValue(value: unknown, depth = 0): boolean {
  if (value === null || typeof value !== 'object') return false
  if (exactRecords.has(value)) return true
  if (depth === 2) return false
  if (Array.isArray(value)) return value.some((member) => isExactValue(member, 2))
  for (const key in value) {
    const member = (value as Record<string, unknown>)[key]
    if (Array.isArray(member) && isExactValue(member, depth + 1)) return true
  }
  return false
}
