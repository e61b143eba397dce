import { stringify as stringifyLossless } from 'lossless-json'
import type { Violation } from '../errors/index.js'
import { RuleProblem, ruleProblems } from '../errors/rule.js'
import { isPlainObject } from '../internal/plain-object.js'
import type { OperationDescription } from '../openapi/operations.js'
import { parseDelay } from '../common/option-values.js'
import { findResponse, mediaOf, settleExamples, statusOf } from '../responses/declared-responses.js'
import { fixtureHeaderViolations } from '../responses/fixture-header-problems.js'
import type { HeaderContext } from '../responses/header-context.js'
import { compileTemplate } from '../responses/templates.js'
import { FAULTS, type Fault, type ScenarioTarget } from './rule.js'
import { bodyViolations } from '../validation/check-response-body.js'
import { type ConditionTarget, compileConditions } from './conditions.js'
import type { AnswerRule, InlineBody, RuleAnswer, StreamControl } from './rule.js'
import { isHeaderName } from '../internal/header-value.js'

/** The fields of one answer: a plain rule, or a step of a sequence. */
export const ANSWER_KEYS = [
  'status',
  'example',
  'fixture',
  'body',
  'headers',
  'dynamic',
  'delay',
  'fault',
  'stream',
  'from',
]
/** The fields of a rule: an answer, and when and how often it applies. */
export const RULE_KEYS = [...ANSWER_KEYS, 'when', 'times', 'sequence', 'cycle', 'validate']

/** Answers in one sequence, at most: a sequence is a few steps of a test, not a data set. */
const MAX_SEQUENCE = 1000

/** An operation as rules are read against it: what it declares, and what its conditions may read. */
export interface RuleTarget extends ScenarioTarget {
  description: OperationDescription
  conditions: ConditionTarget
  /** It has an action on records (`--stateful`): `from: state` is something it can answer. */
  stateful: boolean
}

/** What reading a rule needs beyond its operation: where header values and templates are checked. */
export interface RuleReading {
  headers: HeaderContext
  /** The request view of the description, where a body template's placeholders are checked. */
  requestDocument: unknown
  /** Accept an inline body or headers that break the declared response (a stub's `"force": true`). */
  force?: boolean
}

/**
 * One rule as written (a map of a scenarios file, or a stub's JSON) compiled against its operation:
 * its conditions, answers and counts are checked now, once; a mistake throws a `RuleProblem`.
 * `keys` are the fields the caller takes (a stub adds its own).
 */
export function readRule(
  raw: unknown,
  target: RuleTarget,
  reading: RuleReading,
  label: string,
  keys: readonly string[] = RULE_KEYS,
): AnswerRule {
  const fields = fieldsOf(raw, keys)
  const rule: AnswerRule = { label, answer: {} }
  if (fields.when !== undefined) rule.when = compileConditions(fields.when, target.conditions)
  if (fields.times !== undefined) {
    if (!Number.isInteger(fields.times) || (fields.times as number) < 1) throw ruleProblems.badTimes(fields.times)
    rule.times = fields.times as number
  }
  if (fields.validate !== undefined) {
    if (typeof fields.validate !== 'boolean') throw ruleProblems.badValidate()
    if (!fields.validate) rule.skipsValidation = true
  }
  if (fields.sequence === undefined) {
    if (fields.cycle !== undefined) throw ruleProblems.badSequence('"cycle" goes with a "sequence".')
    rule.answer = readAnswer(fields, target, reading)
    return rule
  }
  const { sequence } = fields
  if (!Array.isArray(sequence) || sequence.length === 0 || sequence.length > MAX_SEQUENCE)
    throw ruleProblems.badSequence(`"sequence" is a list of 1 to ${MAX_SEQUENCE} answers.`)
  const beside = ANSWER_KEYS.filter((key) => fields[key] !== undefined)
  if (beside.length)
    throw ruleProblems.badSequence(`a rule with a "sequence" gives its answers there, not in ${beside.join(', ')}.`)
  if (fields.cycle !== undefined && typeof fields.cycle !== 'boolean')
    throw ruleProblems.badSequence('"cycle" is true or false.')
  rule.sequence = sequence.map((step, index) =>
    inStep(index, () => readAnswer(fieldsOf(step, ANSWER_KEYS), target, reading)),
  )
  if (fields.cycle) rule.cycle = true
  return rule
}

function fieldsOf(raw: unknown, keys: readonly string[]): Record<string, unknown> {
  if (!isPlainObject(raw)) throw ruleProblems.notMap()
  const unknown = Object.keys(raw).filter((key) => !keys.includes(key))
  if (unknown.length) throw ruleProblems.unknownField(unknown, keys)
  return raw as Record<string, unknown>
}

/** A problem in a sequence's step says which step. */
function inStep<T>(index: number, read: () => T): T {
  try {
    return read()
  } catch (error) {
    if (error instanceof RuleProblem) throw new RuleProblem(error.code, `sequence[${index}]: ${error.message}`)
    throw error
  }
}

function readAnswer(fields: Record<string, unknown>, target: RuleTarget, reading: RuleReading): RuleAnswer {
  const answer: RuleAnswer = {}
  if (fields.status !== undefined) answer.status = readStatus(fields.status, target)
  const example = fields.example ?? fields.fixture
  if (example !== undefined && fields.body !== undefined) throw ruleProblems.bodyAndExample()
  if (example !== undefined) answer.example = readExample(String(example), answer.status, target)
  const forced: Violation[] = []
  if (fields.body !== undefined) answer.body = readBody(fields.body, answer.status, target, reading, forced)
  if (fields.headers !== undefined) answer.headers = readHeaders(fields.headers, answer.status, target, reading, forced)
  if (forced.length) answer.violations = forced
  if (fields.dynamic !== undefined) {
    if (typeof fields.dynamic !== 'boolean') throw ruleProblems.badDynamic()
    answer.dynamic = fields.dynamic
  }
  if (fields.delay !== undefined) {
    try {
      answer.delay = parseDelay(fields.delay as string)
    } catch (error) {
      throw ruleProblems.badDelay((error as Error).message)
    }
  }
  if (fields.fault !== undefined) {
    if (!FAULTS.includes(fields.fault as Fault)) throw ruleProblems.badFault(FAULTS)
    answer.fault = fields.fault as Fault
  }
  if (fields.stream !== undefined) answer.stream = readStream(fields.stream)
  if (fields.from !== undefined) checkFrom(fields.from, answer, target)
  return answer
}

const STREAM_BOUNDS: Record<keyof StreamControl, [number, number]> = {
  items: [1, 1000],
  interval: [0, 10_000],
  cut: [0, 1000],
  stall: [0, 1000],
  malformed: [1, 1000],
}

const STREAM_ENDS: readonly string[] = ['complete', 'cut', 'stall']

/**
 * `stream: { items, interval, cut | stall | malformed }`, each a whole number in its range; `end: cut`
 * or `end: stall` says how the stream ends after its `items` instead of its closing (`end: complete`,
 * the default).
 */
function readStream(value: unknown): StreamControl {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw ruleProblems.badStream('not an object')
  const control: StreamControl = {}
  const { end, ...numbers } = value as Record<string, unknown>
  if (end !== undefined && !STREAM_ENDS.includes(end as string))
    throw ruleProblems.badStream(`"end" is ${JSON.stringify(end)}, none of ${STREAM_ENDS.join(', ')}`)
  for (const [key, number] of Object.entries(numbers)) {
    const bounds = STREAM_BOUNDS[key as keyof StreamControl]
    if (!bounds) throw ruleProblems.badStream(`"${key}" is none of these`)
    if (typeof number !== 'number' || !Number.isInteger(number) || number < bounds[0] || number > bounds[1])
      throw ruleProblems.badStream(`"${key}" is ${JSON.stringify(number)}`)
    control[key as keyof StreamControl] = number
  }
  if (end === 'cut' || end === 'stall') {
    if (control.items === undefined) throw ruleProblems.badStream(`"end: ${end}" needs "items", after which it ends`)
    if (end in control) throw ruleProblems.badStream(`it names "${end}" twice`)
    control[end] = control.items
  }
  if (['cut', 'stall', 'malformed'].filter((fault) => fault in control).length > 1)
    throw ruleProblems.badStream('it names more than one fault')
  return control
}

function readStatus(value: unknown, target: RuleTarget): number {
  const status = Number(value)
  if (!Number.isInteger(status) || status < 100 || status > 599) throw ruleProblems.badStatus(value)
  if (!findResponse(target.responses.declared, status)) {
    const declared = target.responses.declared.map((r) => r.code)
    throw ruleProblems.undeclaredStatus(target.id, status, declared)
  }
  return status
}

function readExample(name: string, status: number | undefined, target: RuleTarget): string {
  const { declared } = target.responses
  const responses = status === undefined ? declared : [findResponse(declared, status)!]
  responses.forEach(settleExamples)
  if (responses.some((r) => r.bodies.has(name))) return name
  const known = responses.flatMap((r) => [...r.bodies.keys()].map((n) => `${n} (${r.code})`))
  throw ruleProblems.unknownExample(target.id, name, status, known)
}

/** The status an answer without one is given: the success the operation answers by default. */
function answeredStatus(status: number | undefined, target: RuleTarget): number {
  const { success } = target.responses
  return status ?? (success ? statusOf(success, 200) : 204)
}

/**
 * An inline body, as a fixture is read (`attachFixture`): `{{request...}}` placeholders compiled and
 * checked against the operation, the rest against the response's JSON schema, its text kept.
 */
function readBody(
  value: unknown,
  status: number | undefined,
  target: RuleTarget,
  reading: RuleReading,
  forced: Violation[],
): InlineBody {
  const served = answeredStatus(status, target)
  const response = findResponse(target.responses.declared, served)
  const media = response && mediaOf(response).find((m) => m.kind === 'json')
  if (!response || !media) throw ruleProblems.bodyWithoutContent(target.id, served)
  const where = `The "body" of a rule of ${target.id}`
  let template
  try {
    template = compileTemplate(value, where, { document: reading.requestDocument, operation: target.description })
  } catch (error) {
    throw ruleProblems.badBody((error as Error).message)
  }
  // Integers beyond 2^53 are kept as written (a LosslessNumber); the schema judges the plain value.
  const text = stringifyLossless(value)!
  const violations = bodyViolations(reading.headers, media, JSON.parse(text), template?.slots)
  if (violations.length && !reading.force)
    throw ruleProblems.bodyBreaksSchema(
      target.id,
      served,
      violations.map((v) => `${v.path} ${v.message}`),
    )
  forced.push(...violations)
  return { status: served, response, media, body: { name: 'inline', origin: 'inline', json: text, template } }
}

/** Headers as a fixture's sidecar has them: lower-case names, string values, checked against those the response declares. */
function readHeaders(
  value: unknown,
  status: number | undefined,
  target: RuleTarget,
  reading: RuleReading,
  forced: Violation[],
): Record<string, string> {
  if (!isPlainObject(value)) throw ruleProblems.badHeaders('"headers" is a map of header names to values.')
  const headers: Record<string, string> = {}
  for (const [name, written] of Object.entries(value)) {
    if (!isHeaderName(name)) throw ruleProblems.badHeaders(`"${name}" is no header name.`)
    if (typeof written !== 'string' && typeof written !== 'number' && typeof written !== 'boolean')
      throw ruleProblems.badHeaders(`the value of "${name}" must be a string, a number or a boolean.`)
    const text = String(written)
    if (/[\r\n\0]/.test(text)) throw ruleProblems.badHeaders(`the value of "${name}" holds a line break or NUL.`)
    // What Node cannot write: every answer of the rule was a 500 with a stack on stderr (#34).
    if (/[^\t\x20-\x7e\x80-\xff]/.test(text))
      throw ruleProblems.badHeaders(
        `the value of "${name}" holds a control character or one beyond Latin-1, which HTTP cannot carry: percent-encode it.`,
      )
    headers[name.toLowerCase()] = text
  }
  const served = answeredStatus(status, target)
  const declared = target.description.responses.find(
    (r) => r.code === findResponse(target.responses.declared, served)?.code,
  )
  const violations = fixtureHeaderViolations(reading.headers, declared?.headers ?? [], headers)
  if (violations.length && !reading.force) {
    const problems = violations.map((v) => `${v.path} ${v.message}`)
    throw ruleProblems.badHeaders(`"headers" break what ${target.id} declares for ${served}: ${problems.join('; ')}.`)
  }
  forced.push(...violations)
  return headers
}

/**
 * `from: state` says what a rule without a status, example or body does anyway with `--stateful`: the
 * data step answers, the rule adds its delay, fault and headers. It is checked, so that it cannot be
 * written where it would not hold; nothing reads it afterwards.
 */
function checkFrom(value: unknown, answer: RuleAnswer, target: RuleTarget): void {
  if (value !== 'state') throw ruleProblems.badFrom(`"from" takes "state", got ${JSON.stringify(value)}.`)
  if (!target.stateful)
    throw ruleProblems.badFrom(
      `${target.id} keeps no records: "from: state" needs --stateful and a resource it acts on.`,
    )
  if (answer.status !== undefined || answer.example !== undefined || answer.body !== undefined)
    throw ruleProblems.badFrom('"from: state" answers from the records: it takes no "status", "example" or "body".')
}
