import { LosslessNumber, isLosslessNumber, isSafeNumber } from 'lossless-json'
import { carryExact, markExact } from '../internal/exact-values.js'
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
  if (kind === 'uuid') return crypto.randomUUID()
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

/** A record with its key field set, as a new object; marked exact when the key is an integer beyond 2^53. */
export function withKey(record: StoredRecord, field: string, value: unknown): StoredRecord {
  const keyed = carryExact(record, { ...record, [field]: value })
  if (isLosslessNumber(value)) markExact(keyed)
  return keyed
}
