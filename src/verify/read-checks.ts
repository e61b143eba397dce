import { errors } from '../errors/index.js'
import { RuleProblem } from '../errors/rule.js'
import { isOperationNamed } from '../internal/operation-name.js'
import { isPlainObject } from '../internal/plain-object.js'
import { compileConditions } from '../rules/conditions.js'
import type { RuleBook } from '../rules/rule-targets.js'
import type { Check, Expected } from './verify-check.js'

/** The places of a stub's `when` a check may also give beside its other fields. */
const PLACES = ['body', 'query', 'headers', 'params']
const REQUEST_KEYS = ['operation', 'status', 'times', 'atLeast', 'atMost', 'session', 'when', ...PLACES]
/** The checks that take no fields but their name (and `true`). */
const FLAGS = ['noUnmatched', 'noViolations', 'allStubsUsed'] as const
/** Checks in one `POST /__mock/verify`, at most. */
const MAX_CHECKS = 100

/** `POST /__mock/verify`'s `checks`: each a request check or one of the flags; a mistake is a 400 naming the check. */
export function readChecks(raw: unknown, book: RuleBook): Check[] {
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > MAX_CHECKS)
    throw errors.badVerifyCheck('"checks"', `a list of 1 to ${MAX_CHECKS} checks`)
  return raw.map((check, index) => {
    if (isPlainObject(check) && check.session !== undefined)
      throw errors.badVerifyCheck(`checks[${index}]`, 'the "session" goes beside "checks", for all of them')
    return readCheck(check, book, `checks[${index}]`)
  })
}

/** One check: `{ "operation": ... }`, or `{ "noUnmatched": true }`, `{ "noViolations": true }`, `{ "allStubsUsed": true }`. */
export function readCheck(raw: unknown, book: RuleBook, where: string): Check {
  if (!isPlainObject(raw))
    throw errors.badVerifyCheck(
      where,
      `an object: {"operation": ...} or ${FLAGS.map((f) => `{"${f}": true}`).join(', ')}`,
    )
  const written = raw as Record<string, unknown>
  const flag = FLAGS.find((name) => name in written)
  if (flag !== undefined) {
    const others = Object.keys(written).filter((key) => key !== flag && key !== 'session')
    if (written[flag] !== true || others.length)
      throw errors.badVerifyCheck(
        where,
        `{"${flag}": true} takes nothing else (given: ${Object.keys(written).join(', ')})`,
      )
    return { kind: flag, written }
  }
  return readRequestCheck(written, book, where)
}

function readRequestCheck(written: Record<string, unknown>, book: RuleBook, where: string): Check {
  const unknown = Object.keys(written).filter((key) => !REQUEST_KEYS.includes(key))
  if (unknown.length)
    throw errors.badVerifyCheck(
      where,
      `unknown field ${unknown.map((k) => `"${k}"`).join(', ')}; a check takes ${REQUEST_KEYS.join(', ')}, or is one of ${FLAGS.join(', ')}`,
    )
  const target = findOperation(written.operation, book, where)
  const when = conditionsOf(written, where)
  const check: Check = {
    kind: 'requests',
    written,
    target,
    expected: readExpected(written, where),
    readsParams: when !== undefined && 'params' in when,
  }
  if (written.status !== undefined) check.status = readStatus(written.status, where)
  if (when !== undefined) {
    try {
      check.when = compileConditions(when, target.conditions)
    } catch (error) {
      if (error instanceof RuleProblem) throw errors.badVerifyCheck(`${where} (${target.id})`, error.message)
      throw error
    }
  }
  return check
}

function findOperation(operation: unknown, book: RuleBook, where: string) {
  if (typeof operation !== 'string')
    throw errors.badVerifyCheck(where, '"operation" names the operation: its operationId or "METHOD /path"')
  const named = operation.replace(/^(\S+)/, (method) => method.toUpperCase())
  const found = book.targets.find((t) => isOperationNamed(t, operation) || isOperationNamed(t, named))
  if (found) return found
  const known = book.targets.slice(0, 20).map((t) => t.id)
  throw errors.badVerifyCheck(
    where,
    `"${operation}" names no operation (known: ${known.join(', ')}${book.targets.length > 20 ? ', …' : ''})`,
  )
}

/** `when` and the places beside it, as one `when`; a place given twice is refused. */
function conditionsOf(written: Record<string, unknown>, where: string): Record<string, unknown> | undefined {
  const beside = PLACES.filter((place) => written[place] !== undefined)
  if (written.when === undefined && beside.length === 0) return undefined
  if (written.when !== undefined && !isPlainObject(written.when))
    throw errors.badVerifyCheck(where, '"when" is a map of places (body, query, headers, params) to conditions')
  const when = { ...((written.when as Record<string, unknown> | undefined) ?? {}) }
  for (const place of beside) {
    if (when[place] !== undefined)
      throw errors.badVerifyCheck(where, `"${place}" is given both in "when" and beside it`)
    when[place] = written[place]
  }
  if (when.cookies !== undefined)
    throw errors.badVerifyCheck(where, 'the journal keeps the Cookie header redacted: a check cannot read cookies')
  return when
}

/** `times` (exactly), or `atLeast` and/or `atMost`; none: at least one. */
function readExpected(written: Record<string, unknown>, where: string): Expected {
  const { times, atLeast, atMost } = written
  for (const [name, value] of Object.entries({ times, atLeast, atMost }))
    if (value !== undefined && (!Number.isSafeInteger(value) || (value as number) < 0))
      throw errors.badVerifyCheck(where, `"${name}" is a whole number from 0, got ${JSON.stringify(value)}`)
  if (times !== undefined) {
    if (atLeast !== undefined || atMost !== undefined)
      throw errors.badVerifyCheck(where, '"times" is exact: give it, or "atLeast" and "atMost", not both')
    return { exactly: times as number }
  }
  if (atLeast === undefined && atMost === undefined) return { atLeast: 1 }
  if (atLeast !== undefined && atMost !== undefined && (atLeast as number) > (atMost as number))
    throw errors.badVerifyCheck(where, `"atLeast" (${atLeast}) is more than "atMost" (${atMost})`)
  const expected: Expected = {}
  if (atLeast !== undefined) expected.atLeast = atLeast as number
  if (atMost !== undefined) expected.atMost = atMost as number
  return expected
}

/** `400`, or a class: `4xx`, `4XX`, as the journal's filter takes it. */
function readStatus(value: unknown, where: string): number | `${1 | 2 | 3 | 4 | 5}xx` {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 100 && value <= 599) return value
  if (typeof value === 'string' && /^[1-5]\d\d$/.test(value)) return Number(value)
  if (typeof value === 'string' && /^[1-5]xx$/i.test(value)) return value.toLowerCase() as `${1 | 2 | 3 | 4 | 5}xx`
  throw errors.badVerifyCheck(
    where,
    `"status" is an HTTP status from 100 to 599 or a class such as "4xx", got ${JSON.stringify(value)}`,
  )
}
