import { randomUUID } from 'node:crypto'
import {
  LosslessNumber,
  isLosslessNumber,
  isSafeNumber,
  parse as parseLossless,
  stringify as stringifyLossless,
} from 'lossless-json'
import type { StoredRecord } from './record-store.js'
import type { IdKind } from './resource.js'

/**
 * The key of a record field's value, as a path parameter writes it: `1`, `9223372036854775807`, a uuid
 * in lower case (uuids are case-insensitive); `undefined` when it cannot be a key.
 */
export function keyOf(value: unknown, kind: IdKind): string | undefined {
  if (typeof value === 'string') return kind === 'uuid' ? value.toLowerCase() : value
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined
  if (isLosslessNumber(value)) {
    const { value: text } = value as LosslessNumber
    return integerText(text) ?? text
  }
  return undefined
}

/** The key a path names: `7.0`, `7e0` and `7` name plant 7, `-0` names 0, an upper-case uuid the lower-case one. */
export function pathKeyOf(text: string, kind: IdKind): string {
  // The usual key, plain digits short of 2^53, is already its own.
  if (kind === 'integer' && PLAIN_SAFE_INTEGER.test(text)) return text
  return keyOf(idValueOf(text, kind), kind) ?? text
}

const PLAIN_SAFE_INTEGER = /^(?:0|[1-9]\d{0,14})$/

/** The value a key from the path is stored as: a number for an integer id (exact beyond 2^53), else the text. */
export function idValueOf(key: string, kind: IdKind): unknown {
  const digits = kind === 'integer' ? integerText(key) : undefined
  if (digits === undefined) return key
  return isSafeNumber(digits) ? Number(digits) : new LosslessNumber(digits)
}

/**
 * An integer in any way JSON writes it (`7`, `7.0`, `70e-1`, `-0`), as plain digits (`7`, `7`, `7`,
 * `0`), so that one integer is one key; `undefined` for text that is no integer.
 */
function integerText(text: string): string | undefined {
  if (/^(?:0|-?[1-9]\d*)$/.test(text)) return text
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text)
  if (!match) return undefined
  const [, sign, whole, fraction = '', exponent = '0'] = match
  const digits = whole! + fraction
  // The value is digits × 10^shift; past 400 digits it is no id.
  const shift = Number(exponent) - fraction.length
  if (!Number.isSafeInteger(shift) || digits.length + shift > 400) return undefined
  const kept = Math.max(digits.length + Math.min(shift, 0), 0)
  if (!/^0*$/.test(digits.slice(kept))) return undefined
  const value = BigInt(digits.slice(0, kept) || '0') * 10n ** BigInt(Math.max(shift, 0))
  return String(sign === '-' ? -value : value)
}

/** A key for a record that came without one: the next integer after the highest, a uuid, or a short string not yet taken. */
export function assignId(
  kind: IdKind,
  taken: ReadonlyMap<string, unknown>,
  highest: () => bigint = () => highestIntegerKey(taken),
): unknown {
  if (kind === 'uuid') return randomUUID()
  if (kind === 'integer') return idValueOf(String(highest() + 1n), 'integer')
  for (let n = taken.size + 1; ; n++) if (!taken.has(`r${n}`)) return `r${n}`
}

/** The highest integer key taken, 0 when there is none: every key read (the memory store keeps it, see `memory-records.ts`). */
export function highestIntegerKey(taken: ReadonlyMap<string, unknown>): bigint {
  let highest = 0n
  for (const key of taken.keys()) if (INTEGER_KEY.test(key) && BigInt(key) > highest) highest = BigInt(key)
  return highest
}

export const INTEGER_KEY = /^-?\d+$/

/** RFC 7386: an object patch merges member by member, `null` removes, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch) || isLosslessNumber(patch)) return patch
  const merged: Record<string, unknown> =
    target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...target } : {}
  for (const [name, value] of Object.entries(patch)) {
    if (value === null) delete merged[name]
    else merged[name] = mergePatch(merged[name], value)
  }
  return merged
}

/** Records holding an integer beyond 2^53 (a `LosslessNumber`): written with lossless-json, every other with `JSON.stringify`. */
const exactRecords = new WeakSet<object>()

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

/** A record with its key field set, as a new object; marked exact when the key is an integer beyond 2^53. */
export function withKey(record: StoredRecord, field: string, value: unknown): StoredRecord {
  const keyed = carryExact(record, { ...record, [field]: value })
  if (isLosslessNumber(value)) exactRecords.add(keyed)
  return keyed
}

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
