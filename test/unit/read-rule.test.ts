/**
 * `readRule` (#16): one rule of a scenarios file, or a step of its sequence, compiled against its
 * operation; every field written wrong is a `RuleProblem` with the start-up code docs/limits-and-error-codes.md lists.
 * The operations are an in-memory description compiled by hand, not loaded from a file.
 */
import { describe, expect, it } from 'vitest'
import { RuleProblem } from '../../src/errors/rule.js'
import type { StartupErrorCode } from '../../src/errors/index.js'
import { silentLogger } from '../../src/common/log.js'
import { nodeAt } from '../../src/openapi/resolve-ref.js'
import { ANSWER_KEYS, type RuleReading, type RuleTarget, readRule } from '../../src/rules/read-rule.js'
import { compileResponses } from '../../src/responses/compile-responses.js'
import { ajvFor, operationsOf } from '../support/builders.js'

const json = (schema: unknown, extra: Record<string, unknown> = {}) => ({
  description: 'd',
  ...extra,
  content: { 'application/json': { schema } },
})

/** POST /items (JSON body; 200 with an X-Stock header, 400 with an example named duplicate); DELETE /items/{itemId} (204 only). */
function itemsDocument(): Record<string, any> {
  const problem = {
    description: 'd',
    content: {
      'application/json': {
        schema: { $ref: '#/components/schemas/Error' },
        examples: { duplicate: { value: { error: 400, message: 'There is one.' } } },
      },
    },
  }
  return {
    openapi: '3.1.0',
    info: { title: 'items', version: '1' },
    paths: {
      '/items': {
        post: {
          operationId: 'addItem',
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/NewItem' } } },
          },
          responses: {
            '200': json(
              { $ref: '#/components/schemas/Item' },
              { headers: { 'X-Stock': { schema: { type: 'integer', minimum: 0 } } } },
            ),
            '400': problem,
          },
        },
      },
      '/items/{itemId}': {
        delete: {
          operationId: 'deleteItem',
          parameters: [{ name: 'itemId', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { '204': { description: 'gone' } },
        },
      },
    },
    components: {
      schemas: {
        NewItem: {
          type: 'object',
          required: ['name'],
          additionalProperties: false,
          properties: { name: { type: 'string' }, count: { type: 'integer', format: 'int64' } },
        },
        Item: {
          type: 'object',
          required: ['name'],
          additionalProperties: false,
          properties: { name: { type: 'string' }, note: { type: 'string' } },
        },
        Error: {
          type: 'object',
          required: ['error', 'message'],
          properties: { error: { type: 'integer' }, message: { type: 'string' } },
        },
      },
    },
  }
}

const document = itemsDocument()
const ajv = ajvFor(document)
const descriptions = operationsOf(document)

/** Each operation as rules are read against it; `stateful` says whether it has an action on records. */
function targetOf(index: number, stateful = false): RuleTarget {
  const description = descriptions[index]!
  const pointer = description.requestBody?.content[0]?.schemaPointer
  return {
    index,
    id: description.id,
    method: description.method,
    path: description.path,
    secured: false,
    responses: compileResponses({ document, ajv, logger: silentLogger }, description),
    description,
    stateful,
    conditions: {
      document,
      bodySchema: pointer ? nodeAt(document, pointer) : undefined,
      pathParameters: description.parameters.filter((p) => p.in === 'path').map((p) => p.name),
    },
  }
}

const addItem = targetOf(0)
const deleteItem = targetOf(1)
const reading: RuleReading = { headers: { document, ajv, logger: silentLogger }, requestDocument: document }

const read = (raw: unknown, target = addItem, options: Partial<RuleReading> = {}) =>
  readRule(raw, target, { ...reading, ...options }, 'scenario s, addItem rule 1')

/** The RuleProblem reading `raw` throws, having asserted its code. */
function problemOf(raw: unknown, code: StartupErrorCode, target = addItem): RuleProblem {
  let thrown: unknown
  try {
    read(raw, target)
  } catch (error) {
    thrown = error
  }
  expect(thrown).toBeInstanceOf(RuleProblem)
  expect((thrown as RuleProblem).code).toBe(code)
  return thrown as RuleProblem
}

describe('readRule: a rule read whole', () => {
  it('keeps its label, compiles its conditions and reads its answer, times and validate', () => {
    const rule = read({
      when: { body: { '$.name': 'Fern', '$.count': { gt: 2 } } },
      times: 2,
      validate: false,
      status: 400,
      example: 'duplicate',
      delay: '5-10',
    })
    expect(rule.label).toBe('scenario s, addItem rule 1')
    expect(rule.when?.count).toBe(2)
    expect(rule.when?.describe(1)).toBe('body $.count gt 2')
    expect(rule.times).toBe(2)
    expect(rule.skipsValidation).toBe(true)
    expect(rule.answer).toEqual({ status: 400, example: 'duplicate', delay: { min: 5, max: 10 } })
    expect(rule.sequence).toBeUndefined()
  })

  it('leaves a rule with validate: true validating', () => {
    expect(read({ validate: true, status: 400 }).skipsValidation).toBeUndefined()
  })

  it('reads a rule without when as one that applies to every request', () => {
    const rule = read({ status: 400 })
    expect(rule.when).toBeUndefined()
    expect(rule.times).toBeUndefined()
  })

  it('refuses a rule that is not a map', () => {
    expect(problemOf([{ status: 400 }], 'scenario_bad_rule').message).toMatch(/a rule is a map/)
  })

  it('refuses an unknown field, listing those a rule takes', () => {
    expect(problemOf({ code: 400 }, 'scenario_unknown_rule_field').message).toMatch(
      /unknown field\(s\) code; a rule takes status, .*when, times, sequence, cycle, validate/,
    )
  })

  it('takes only the fields its caller names', () => {
    let thrown: unknown
    try {
      readRule({ when: { body: { '$.name': 'x' } } }, addItem, reading, 'step', ANSWER_KEYS)
    } catch (error) {
      thrown = error
    }
    expect((thrown as RuleProblem).code).toBe('scenario_unknown_rule_field')
  })
})

describe('readRule: when, times and validate', () => {
  it.each([
    ['a list', []],
    ['an unknown location', { form: { name: 'x' } }],
    ['an unknown operator', { body: { '$.name': { like: 'x' } } }],
    ['a path outside the body schema', { body: { '$.colour': 'red' } }],
    ['a bad regular expression', { body: { '$.name': { matches: '[' } } }],
  ])('refuses when as %s with scenario_bad_condition', (_, when) => {
    expect(problemOf({ when, status: 400 }, 'scenario_bad_condition').message).toMatch(/^when/)
  })

  it('refuses a body condition on an operation that takes no body', () => {
    const problem = problemOf({ when: { body: { '$.name': 'x' } } }, 'scenario_bad_condition', deleteItem)
    expect(problem.message).toMatch(/takes no JSON request body/)
  })

  it.each([0, -1, 1.5, '2', true])('refuses times: %j with scenario_bad_times', (times) => {
    expect(problemOf({ times, status: 400 }, 'scenario_bad_times').message).toContain(`got ${JSON.stringify(times)}`)
  })

  it.each(['no', 0, 'false'])('refuses validate: %j with scenario_bad_validate', (validate) => {
    expect(problemOf({ validate, status: 400 }, 'scenario_bad_validate').message).toBe('"validate" is true or false.')
  })
})

describe('readRule: the answer', () => {
  it.each([
    [{ status: 999 }, 'scenario_bad_status', /got 999/],
    [{ status: 404 }, 'scenario_undeclared_status', /addItem does not declare status 404 \(declared: 200, 400\)/],
    [{ example: 'nope' }, 'scenario_unknown_example', /no fixture or example named "nope".*duplicate \(400\)/],
    [{ status: 200, example: 'duplicate' }, 'scenario_unknown_example', /for status 200/],
    [{ dynamic: 'yes' }, 'scenario_bad_dynamic', /true or false/],
    [{ delay: 'soon' }, 'scenario_bad_delay', /"soon"/],
    [{ fault: 'timeout' }, 'scenario_bad_fault', /one of reset, empty, malformed, hang/],
  ] as const)('refuses %j with %s', (raw, code, message) => {
    expect(problemOf(raw, code).message).toMatch(message)
  })
})

describe('readRule: body', () => {
  it('reads an inline body as the success response it is served as, its template compiled', () => {
    const { body } = read({ body: { name: '{{request.body.name}}', note: 'inline' } }).answer
    expect(body?.status).toBe(200)
    expect(body?.media.mediaType).toBe('application/json')
    expect(body?.body.json).toBe('{"name":"{{request.body.name}}","note":"inline"}')
    expect(body?.body.template?.slots).toEqual(['/name'])
    expect(read({ body: { name: 'x' } }).answer.violations).toBeUndefined()
  })

  it('serves an inline body with the status the rule gives', () => {
    expect(read({ status: 400, body: { error: 400, message: 'no' } }).answer.body?.status).toBe(400)
  })

  it.each([
    ['example', { example: 'duplicate', body: { error: 400, message: 'no' }, status: 400 }],
    ['fixture', { fixture: 'duplicate', body: { error: 400, message: 'no' }, status: 400 }],
  ])('refuses a body beside %s with scenario_bad_body', (_, raw) => {
    expect(problemOf(raw, 'scenario_bad_body').message).toMatch(/either a named "example".*or an inline "body"/)
  })

  it('refuses a body that breaks the response schema, naming the field', () => {
    const problem = problemOf({ body: { name: 5, colour: 'red' } }, 'scenario_bad_body')
    expect(problem.message).toMatch(/^"body" breaks the schema of addItem's 200 response: /)
    expect(problem.message).toContain('body.name must be a string')
    expect(problem.message).toContain('body.colour is not declared by the schema')
  })

  it('accepts a body that breaks the schema when forced, keeping its violations', () => {
    const rule = read({ body: { name: 5 } }, addItem, { force: true })
    expect(rule.answer.body?.body.json).toBe('{"name":5}')
    expect(rule.answer.violations?.map((v) => `${v.path} ${v.message}`)).toEqual(['body.name must be a string'])
  })

  it('refuses a body for a response without JSON content', () => {
    expect(problemOf({ body: { name: 'x' } }, 'scenario_bad_body', deleteItem).message).toMatch(
      /deleteItem declares no JSON content for status 204/,
    )
  })

  it('refuses a placeholder that reads what the operation cannot send', () => {
    const problem = problemOf({ body: { name: '{{request.params.nope}}' } }, 'scenario_bad_body')
    expect(problem.message).toMatch(/request\.params has no nope/)
  })
})

describe('readRule: headers', () => {
  it('reads headers with lower-case names and text values', () => {
    expect(read({ headers: { 'X-Stock': 3, 'X-Rule': 'first', 'X-Flag': true } }).answer.headers).toEqual({
      'x-stock': '3',
      'x-rule': 'first',
      'x-flag': 'true',
    })
  })

  it.each([
    ['a list', ['x-a'], /a map of header names/],
    ['a name with a space', { 'x rule': 'a' }, /"x rule" is no header name/],
    ['an object value', { 'x-rule': { a: 1 } }, /value of "x-rule" must be a string, a number or a boolean/],
    ['a line break', { 'x-rule': 'a\r\nset-cookie: b' }, /holds a line break or NUL/],
    ['a character beyond Latin-1 (#34)', { 'x-rule': 'Farn – grün' }, /"x-rule" holds .* beyond Latin-1/],
    ['a control character (#34)', { 'x-rule': 'ring\u0007' }, /"x-rule" holds a control character/],
    ['a value breaking the declared schema', { 'X-Stock': -1 }, /break what addItem declares for 200: .*x-stock/],
  ])('refuses headers with %s with scenario_bad_headers', (_, headers, message) => {
    expect(problemOf({ headers }, 'scenario_bad_headers').message).toMatch(message)
  })

  it('accepts headers that break the declared schema when forced, keeping their violations', () => {
    const rule = read({ headers: { 'X-Stock': -1 } }, addItem, { force: true })
    expect(rule.answer.headers).toEqual({ 'x-stock': '-1' })
    expect(rule.answer.violations?.map((v) => v.path)).toEqual(['header["x-stock"]'])
  })

  it('judges headers against the response of the rule status', () => {
    // The 400 declares no X-Stock: the value is the rule's own, not judged.
    expect(read({ status: 400, headers: { 'X-Stock': -1 } }).answer.headers).toEqual({ 'x-stock': '-1' })
  })
})

describe('readRule: from', () => {
  it('reads from: state on an operation that keeps records', () => {
    const rule = read({ from: 'state', delay: 5, headers: { 'x-rule': 'state' } }, targetOf(0, true))
    expect(rule.answer).toEqual({ delay: { min: 5, max: 5 }, headers: { 'x-rule': 'state' } })
  })

  it('refuses from: state on an operation that keeps no records, naming --stateful', () => {
    expect(problemOf({ from: 'state' }, 'scenario_bad_from').message).toMatch(/addItem keeps no records.*--stateful/)
  })

  it('refuses from anything but state', () => {
    expect(problemOf({ from: 'records' }, 'scenario_bad_from', targetOf(0, true)).message).toContain('"records"')
  })

  it.each([{ status: 400 }, { example: 'duplicate' }, { body: { name: 'x' } }])(
    'refuses from: state beside %j',
    (answer) => {
      const problem = problemOf({ from: 'state', ...answer }, 'scenario_bad_from', targetOf(0, true))
      expect(problem.message).toMatch(/takes no "status", "example" or "body"/)
    },
  )
})

describe('readRule: sequence', () => {
  it('reads each step as an answer, in order, with cycle', () => {
    const rule = read({
      when: { body: { '$.name': 'x' } },
      sequence: [{ status: 400 }, { fault: 'reset' }, {}],
      cycle: true,
    })
    expect(rule.sequence).toEqual([{ status: 400 }, { fault: 'reset' }, {}])
    expect(rule.cycle).toBe(true)
    expect(rule.answer).toEqual({})
  })

  it('leaves cycle unset when false', () => {
    expect(read({ sequence: [{ status: 400 }], cycle: false }).cycle).toBeUndefined()
  })

  it.each([
    ['empty', { sequence: [] }, /a list of 1 to 1000 answers/],
    ['not a list', { sequence: { status: 400 } }, /a list of 1 to 1000 answers/],
    ['too long', { sequence: Array.from({ length: 1001 }, () => ({})) }, /a list of 1 to 1000 answers/],
    ['beside a status', { status: 400, sequence: [{ status: 400 }] }, /gives its answers there, not in status/],
    ['beside delay and headers', { delay: 5, headers: {}, sequence: [{}] }, /not in headers, delay/],
    ['cycle without a sequence', { status: 400, cycle: true }, /"cycle" goes with a "sequence"/],
    ['cycle not a boolean', { sequence: [{}], cycle: 'yes' }, /"cycle" is true or false/],
  ])('refuses a sequence %s with scenario_bad_sequence', (_, raw, message) => {
    expect(problemOf(raw, 'scenario_bad_sequence').message).toMatch(message)
  })

  it('names the step that is wrong, with that step’s own code', () => {
    const problem = problemOf({ sequence: [{ status: 400 }, { status: 404 }] }, 'scenario_undeclared_status')
    expect(problem.message).toMatch(/^sequence\[1\]: addItem does not declare status 404/)
  })

  it('refuses rule fields inside a step', () => {
    const problem = problemOf({ sequence: [{ times: 2 }] }, 'scenario_unknown_rule_field')
    expect(problem.message).toMatch(/^sequence\[0\]: unknown field\(s\) times/)
  })

  it('refuses a step that is not a map', () => {
    expect(problemOf({ sequence: [{}, {}, 400] }, 'scenario_bad_rule').message).toMatch(/^sequence\[2\]: /)
  })
})
