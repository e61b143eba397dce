import { type MockError, errors } from '../errors/index.js'
import type { Choice } from './create-router.js'
import type { RouteRequest } from './match-operation.js'
import type { Condition } from './split-path-key.js'

/** The first candidate, most conditions first, whose conditions the request meets; the path parameters it carries go into `params`. */
export function chooseByConditions<T>(
  choice: Choice<T>,
  request: RouteRequest,
  params: Record<string, string>,
): T | undefined {
  const { byValue } = choice
  const candidates = byValue
    ? byValue.candidates.get(readCondition(byValue.in, byValue.key, request) ?? '')
    : choice.candidates
  if (candidates === undefined) return undefined
  for (const candidate of candidates) {
    if (!meetsAll(candidate.conditions, request)) continue
    for (const { param, in: location, key } of candidate.conditions) {
      // Path parameters are read percent-encoded, as they come in a path.
      if (param !== undefined) params[param] = encodeURIComponent(readCondition(location, key, request)!)
    }
    return candidate.operation
  }
  return undefined
}

function meetsAll(conditions: Condition[], request: RouteRequest): boolean {
  for (const condition of conditions) {
    const actual = readCondition(condition.in, condition.key, request)
    if (actual === undefined || (condition.value !== undefined && actual !== condition.value)) return false
  }
  return true
}

function readCondition(location: Condition['in'], key: string, request: RouteRequest): string | undefined {
  return location === 'header' ? request.header(key) : (request.query().get(key) ?? undefined)
}

/** 404 naming what the operations of the path and method expect of the request (a few, for AWS's hundreds). */
export function unmetConditions<T>(method: string, path: string, choice: Choice<T>): MockError {
  const shown = 5
  const expected = choice.candidates
    .slice(0, shown)
    .map((candidate) => candidate.conditions.map((c) => c.label).join(' and '))
  return errors.unmetConditions(method, path, expected, choice.candidates.length - shown)
}
