import { isLosslessNumber, stringify as stringifyLossless } from 'lossless-json'
import { isPlainObject } from '../internal/plain-object.js'

/**
 * A number as conditions compare it: a `number`, except an integer beyond 2^53, which is a `bigint`
 * holding its exact value. So one value has one form, `===` is equality and `<` orders both kinds.
 */
export type ExactNumber = number | bigint

/** A number, bigint or LosslessNumber as an ExactNumber; `undefined` for anything else (a string too). */
export function exactNumberOf(value: unknown): ExactNumber | undefined {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return undefined
    // A double past 2^53 stands for the decimal it prints as (`1e+300`), as the text `1e300` does.
    return Number.isInteger(value) && !Number.isSafeInteger(value) ? exactNumberFromText(String(value)) : value
  }
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value
  if (isLosslessNumber(value)) return exactNumberFromText(value.value)
  return undefined
}

const SMALL_INTEGER = /^-?(?:0|[1-9]\d{0,14})$/
const JSON_NUMBER = /^(-?)(0|[1-9]\d*)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/

/** Text that reads as a JSON number (`5`, `5.0`, `9007199254740993`, `1e3`) as an ExactNumber; else `undefined`. */
export function exactNumberFromText(text: string): ExactNumber | undefined {
  if (SMALL_INTEGER.test(text)) return Number(text)
  const match = JSON_NUMBER.exec(text)
  if (!match) return undefined
  const [, sign, whole, fraction = '', exponent = '0'] = match
  const approximate = Number(text)
  if (Number.isSafeInteger(approximate) || !Number.isInteger(approximate)) return approximate
  // An integer beyond 2^53: its exact digits. Past 400 digits it is no int64 anyway.
  const digits = whole! + fraction
  const shift = Number(exponent) - fraction.length
  if (digits.length + shift > 400) return approximate
  if (shift < 0 && !/^0*$/.test(digits.slice(digits.length + shift))) return approximate
  const magnitude = shift < 0 ? BigInt(digits.slice(0, digits.length + shift)) : BigInt(digits) * 10n ** BigInt(shift)
  return sign === '-' ? -magnitude : magnitude
}

/** An operand with every number in it (deep) as an ExactNumber, ready for `equalsExactly`. */
export function exactOperand(value: unknown): unknown {
  const number = exactNumberOf(value)
  if (number !== undefined) return number
  if (Array.isArray(value)) return value.map(exactOperand)
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, exactOperand(v)]))
  return value
}

/** Some number in an operand (deep) is an integer beyond 2^53: the body must be read exactly to compare it. */
export function hasBigInteger(operand: unknown): boolean {
  if (typeof operand === 'bigint') return true
  if (Array.isArray(operand)) return operand.some(hasBigInteger)
  return isPlainObject(operand) && Object.values(operand).some(hasBigInteger)
}

/** JSON deep equality of a body value and an `exactOperand`: numbers by value (1 equals 1.0), exactly past 2^53. */
export function equalsExactly(actual: unknown, expected: unknown): boolean {
  if (typeof expected === 'number' || typeof expected === 'bigint') return exactNumberOf(actual) === expected
  if (expected === null || typeof expected !== 'object') return actual === expected
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return false
    for (let i = 0; i < expected.length; i++) if (!equalsExactly(actual[i], expected[i])) return false
    return true
  }
  if (!isPlainObject(actual) || isLosslessNumber(actual)) return false
  let fields = 0
  for (const key in expected) {
    if (!Object.hasOwn(expected, key)) continue
    if (!Object.hasOwn(actual, key) || !equalsExactly(actual[key], (expected as Record<string, unknown>)[key]))
      return false
    fields++
  }
  for (const key in actual) if (Object.hasOwn(actual, key)) fields--
  return fields === 0
}

/** The text a string condition (`matches`) tests: a string as it is, a number or boolean as its JSON text. */
export function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return isLosslessNumber(value) ? value.value : undefined
}

/** A value as JSON text for messages: bigint and LosslessNumber as their digits. */
export function jsonText(value: unknown): string {
  return stringifyLossless(value) ?? String(value)
}

/** Whether a value read from the request meets one operator's operand. */
export type ValueTest = (value: unknown) => boolean

/**
 * `equals`: body values equal as JSON; a text value (query, headers, params, cookies, session)
 * equals a string as text, a number when it reads as that number (`5.0` equals 5), a boolean as
 * `true`/`false`. `undefined` when the operand cannot be compared with text.
 */
export function equalityTest(operand: unknown, inBody: boolean): ValueTest | undefined {
  if (inBody) {
    const expected = exactOperand(operand)
    return (value) => equalsExactly(value, expected)
  }
  if (typeof operand === 'string') return (value) => value === operand
  if (typeof operand === 'boolean') return (value) => value === String(operand)
  const expected = exactNumberOf(operand)
  return expected === undefined
    ? undefined
    : (value) => typeof value === 'string' && exactNumberFromText(value) === expected
}

const ORDERS = {
  gt: (a: ExactNumber, b: ExactNumber) => a > b,
  lt: (a: ExactNumber, b: ExactNumber) => a < b,
  gte: (a: ExactNumber, b: ExactNumber) => a >= b,
  lte: (a: ExactNumber, b: ExactNumber) => a <= b,
}

export type Order = keyof typeof ORDERS

/**
 * `gt`, `lt`, `gte`, `lte`: a number in the body, or text that reads as a JSON number elsewhere;
 * anything else fails. `undefined` when the operand is no number.
 */
export function orderTest(operator: Order, operand: unknown, inBody: boolean): ValueTest | undefined {
  const bound = exactNumberOf(operand)
  if (bound === undefined) return undefined
  const numberOf = inBody ? exactNumberOf : numberFromText
  const holds = ORDERS[operator]
  return (value) => {
    const number = numberOf(value)
    return number !== undefined && holds(number, bound)
  }
}

function numberFromText(value: unknown): ExactNumber | undefined {
  return typeof value === 'string' ? exactNumberFromText(value) : undefined
}
