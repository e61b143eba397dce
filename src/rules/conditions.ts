import { isLosslessNumber } from 'lossless-json'
import { ruleProblems } from '../errors/rule.js'
import { isPlainObject } from '../internal/plain-object.js'
import { compilePatternNow } from '../validation/compile-pattern.js'
import {
  equalityTest,
  exactOperand,
  hasBigInteger,
  jsonText,
  orderTest,
  textOf,
  type Order,
  type ValueTest,
} from './condition-values.js'
import { findImpossibleStep, parseJsonPath, readJsonPath, type PathStep } from './json-path.js'
import type { ConditionSource, Conditions, MatchRequest, Miss } from './rule.js'

export interface ConditionTarget {
  /** The request view of the description (for $ref resolution of the body schema). */
  document: unknown
  /** The schema of the operation's JSON request body; undefined when the operation takes no JSON body. */
  bodySchema: unknown | undefined
  /** Names of the operation's declared path parameters. */
  pathParameters: readonly string[]
}

const LOCATIONS: readonly string[] = [
  'body',
  'query',
  'headers',
  'params',
  'cookies',
  'session',
] satisfies ConditionSource[]
const OPERATORS: readonly string[] = ['equals', 'matches', 'exists', 'in', 'gt', 'lt', 'gte', 'lte']

/** One operator at one place, compiled: the request is read by `read` and judged by `test`, nothing parsed per call. */
interface Condition {
  read(request: MatchRequest): unknown
  test: ValueTest
  text: string
}

/** Where a condition reads: how, how it is named in `describe`, and the path steps of a body condition. */
interface Place {
  where: string
  label: string
  read(request: MatchRequest): unknown
  steps?: PathStep[]
}

/** A rule's `when` (as YAML or the admin API gives it) compiled once; a RuleProblem says what is written wrong. */
export function compileConditions(raw: unknown, target: ConditionTarget): Conditions {
  if (!isPlainObject(raw) || isLosslessNumber(raw))
    throw ruleProblems.badCondition(`when: expected a map of ${LOCATIONS.join(', ')}`)
  const conditions: Condition[] = []
  let readsExactBody = false
  for (const [location, named] of Object.entries(raw)) {
    if (!LOCATIONS.includes(location))
      throw ruleProblems.badCondition(`when: "${location}" is no location; use ${LOCATIONS.join(', ')}`)
    const places = location === 'session' ? [[SESSION, named] as const] : placesAt(location, named, target)
    for (const [place, operators] of places) {
      for (const [operator, operand] of operatorsOf(place.where, operators)) {
        if (place.steps) checkBodyPath(place, operator, operand, target)
        conditions.push(compileCondition(place, operator, operand))
        if (place.steps && operator !== 'matches' && operator !== 'exists')
          readsExactBody ||= hasBigInteger(exactOperand(operand))
      }
    }
  }
  if (conditions.length === 0) throw ruleProblems.badCondition('when: lists no condition')
  return createConditions(conditions, readsExactBody)
}

const SESSION: Place = { where: 'when.session', label: 'session', read: (request) => request.session }

function placesAt(location: string, named: unknown, target: ConditionTarget): Array<readonly [Place, unknown]> {
  if (!isPlainObject(named) || isLosslessNumber(named))
    throw ruleProblems.badCondition(`when.${location}: expected a map of names to conditions`)
  const entries = Object.entries(named)
  if (entries.length === 0) throw ruleProblems.badCondition(`when.${location}: names nothing`)
  return entries.map(([name, operators]) => [placeOf(location, name, target), operators] as const)
}

function placeOf(location: string, name: string, target: ConditionTarget): Place {
  const where = `when.${location}[${JSON.stringify(name)}]`
  switch (location) {
    case 'body': {
      const steps = parseJsonPath(name)
      if (typeof steps === 'string') throw ruleProblems.badCondition(`${where}: ${steps}`)
      return { where, label: `body ${name}`, steps, read: (request) => readJsonPath(request.body, steps) }
    }
    case 'query':
      return { where, label: `query ${name}`, read: (request) => request.request.query().get(name) ?? undefined }
    case 'headers': {
      const lower = name.toLowerCase()
      return { where, label: `headers ${lower}`, read: (request) => request.request.header(lower) }
    }
    case 'params':
      if (!target.pathParameters.includes(name)) {
        const declared = target.pathParameters.length ? `declares ${target.pathParameters.join(', ')}` : 'declares none'
        throw ruleProblems.badCondition(`${where}: the operation has no path parameter "${name}"; it ${declared}`)
      }
      return { where, label: `params ${name}`, read: (request) => decodeParam(request.params, name) }
    default:
      return { where, label: `cookies ${name}`, read: (request) => request.request.cookie(name) }
  }
}

/** A path parameter as the client meant it: percent-decoded, or as sent when its escapes are broken. */
function decodeParam(params: Record<string, string>, name: string): string | undefined {
  const text = Object.hasOwn(params, name) ? params[name] : undefined
  if (text === undefined || !text.includes('%')) return text
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/** The operator map's entries; a plain value is short for `{ equals: value }`. */
function operatorsOf(where: string, operators: unknown): Array<[string, unknown]> {
  if (isScalar(operators)) return [['equals', operators]]
  if (!isPlainObject(operators))
    throw ruleProblems.badCondition(`${where}: expected a value or a map of operators (${OPERATORS.join(', ')})`)
  const entries = Object.entries(operators)
  if (entries.length === 0) throw ruleProblems.badCondition(`${where}: lists no operator; use ${OPERATORS.join(', ')}`)
  for (const [operator] of entries)
    if (!OPERATORS.includes(operator))
      throw ruleProblems.badCondition(`${where}: "${operator}" is no operator; use ${OPERATORS.join(', ')}`)
  return entries
}

function isScalar(value: unknown): boolean {
  return value === null || typeof value !== 'object' || isLosslessNumber(value)
}

/** A body condition must be one some valid body could meet: the operation takes a body, and its schema allows the path. */
function checkBodyPath(place: Place, operator: string, operand: unknown, target: ConditionTarget): void {
  const steps = place.steps!
  if (target.bodySchema === undefined) {
    if (steps.length === 0 && operator === 'exists' && operand === false) return
    throw ruleProblems.badCondition(`${place.where}: the operation takes no JSON request body`)
  }
  const impossible = findImpossibleStep(target.document, target.bodySchema, steps)
  if (impossible) throw ruleProblems.badCondition(`${place.where}: ${impossible}`)
}

function compileCondition(place: Place, operator: string, operand: unknown): Condition {
  const where = `${place.where}.${operator}`
  const inBody = place.steps !== undefined
  const condition = (test: ValueTest, shown = jsonText(operand)): Condition => ({
    read: place.read,
    test,
    text: `${place.label} ${operator} ${shown}`,
  })
  switch (operator) {
    case 'equals':
      return condition(equalityOf(where, operand, inBody))
    case 'in': {
      if (!Array.isArray(operand) || operand.length === 0)
        throw ruleProblems.badCondition(`${where}: expected a non-empty list`)
      const tests = operand.map((item, i) => equalityOf(`${where}[${i}]`, item, inBody))
      return condition((value) => {
        for (let i = 0; i < tests.length; i++) if (tests[i]!(value)) return true
        return false
      })
    }
    case 'matches': {
      if (typeof operand !== 'string')
        throw ruleProblems.badCondition(`${where}: expected a regular expression as a string`)
      const pattern = compileMatches(where, operand)
      return condition((value) => {
        const text = textOf(value)
        return text !== undefined && pattern.test(text)
      }, `/${operand}/`)
    }
    case 'exists': {
      if (typeof operand !== 'boolean') throw ruleProblems.badCondition(`${where}: expected true or false`)
      const test = (value: unknown) => (value !== undefined) === operand
      return { read: place.read, test, text: `${place.label} ${operand ? 'exists' : 'does not exist'}` }
    }
    default: {
      const test = orderTest(operator as Order, operand, inBody)
      if (!test) throw ruleProblems.badCondition(`${where}: expected a number`)
      return condition(test)
    }
  }
}

function equalityOf(where: string, operand: unknown, inBody: boolean): ValueTest {
  const test = equalityTest(operand, inBody)
  if (!test) throw ruleProblems.badCondition(`${where}: expected a string, number or boolean (the value is text)`)
  return test
}

function compileMatches(where: string, source: string): { test(text: string): boolean } {
  const pattern = compilePatternNow(source)
  if (pattern) return pattern
  let reason = 'no regular-expression engine reads it'
  try {
    new RegExp(source)
  } catch (error) {
    reason = (error as Error).message
  }
  throw ruleProblems.badCondition(`${where}: /${source}/ is no regular expression (${reason})`)
}

function createConditions(conditions: readonly Condition[], readsExactBody: boolean): Conditions {
  return {
    count: conditions.length,
    readsExactBody,
    describe: (index) => conditions[index]?.text ?? `no condition ${index}`,
    // Every condition is judged, not only up to the first failure: the closest rule is the one with fewest.
    check(request: MatchRequest, miss?: Miss): number {
      let failing = 0
      for (let i = 0; i < conditions.length; i++) {
        const condition = conditions[i]!
        const value = condition.read(request)
        if (condition.test(value)) continue
        if (failing++ === 0 && miss) {
          miss.condition = i
          miss.actual = value
        }
      }
      return failing
    },
  }
}
