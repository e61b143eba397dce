import { LosslessNumber } from 'lossless-json'
import { describe, expect, it } from 'vitest'
import { compileConditions, type ConditionTarget } from '../../src/rules/conditions.js'
import { RuleProblem } from '../../src/errors/rule.js'
import { formatJsonPath, parseJsonPath, readJsonPath } from '../../src/rules/json-path.js'
import type { MatchRequest, Miss } from '../../src/rules/rule.js'
import { compilePattern, compilePatternNow } from '../../src/validation/compile-pattern.js'
import { requestOf, type FakeRequest } from '../support/builders.js'

const plantSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    id: { type: 'integer', format: 'int64' },
    name: { type: 'string' },
    price: { type: 'number' },
    organic: { type: 'boolean' },
    pot: { type: 'object', additionalProperties: false, properties: { size: { type: 'integer' } } },
    tags: { type: 'array', items: { type: 'string' } },
    extra: {},
    'odd key': { type: 'string' },
  },
}

const target: ConditionTarget = { document: {}, bodySchema: plantSchema, pathParameters: ['plantId'] }

interface Exchange extends FakeRequest {
  body?: unknown
  params?: Record<string, string>
  session?: string
}

function exchange({ body, params = {}, session, ...request }: Exchange = {}): MatchRequest {
  return { request: requestOf(request), params, body, session }
}

/** How many conditions of `when` fail for the exchange. */
function failing(when: unknown, request: Exchange, on: ConditionTarget = target): number {
  return compileConditions(when, on).check(exchange(request))
}

function holds(when: unknown, request: Exchange, on: ConditionTarget = target): boolean {
  return failing(when, request, on) === 0
}

function problem(when: unknown, on: ConditionTarget = target): string {
  try {
    compileConditions(when, on)
  } catch (error) {
    expect(error).toBeInstanceOf(RuleProblem)
    return (error as Error).message
  }
  throw new Error('no RuleProblem')
}

describe('compileConditions: body', () => {
  const plant = { id: 7, name: 'Poison Ivy', price: 1.5, organic: true, pot: { size: 4 }, tags: ['green'], extra: null }

  it('compares with equals as JSON, numbers by value', () => {
    expect(holds({ body: { '$.name': { equals: 'Poison Ivy' } } }, { body: plant })).toBe(true)
    expect(holds({ body: { '$.name': 'Poison Ivy' } }, { body: plant })).toBe(true)
    expect(holds({ body: { '$.pot': { equals: { size: 4.0 } } } }, { body: plant })).toBe(true)
    expect(holds({ body: { '$.tags': { equals: ['green'] } } }, { body: plant })).toBe(true)
    expect(holds({ body: { '$.tags': { equals: ['green', 'red'] } } }, { body: plant })).toBe(false)
    expect(holds({ body: { '$.pot': { equals: {} } } }, { body: plant })).toBe(false)
    expect(holds({ body: { '$.extra': null } }, { body: plant })).toBe(true)
    expect(holds({ body: { '$.id': '7' } }, { body: plant })).toBe(false)
    expect(holds({ body: { $: { equals: { a: [1, { b: 2 }] } } } }, { body: { a: [1.0, { b: 2 }] } })).toBe(true)
  })

  it('tests matches on strings, and on numbers and booleans as their JSON text', () => {
    expect(holds({ body: { '$.name': { matches: '^Poison' } } }, { body: plant })).toBe(true)
    expect(holds({ body: { '$.price': { matches: '^1\\.5$' } } }, { body: plant })).toBe(true)
    expect(holds({ body: { '$.organic': { matches: 'true' } } }, { body: plant })).toBe(true)
    expect(holds({ body: { '$.pot': { matches: '.*' } } }, { body: plant })).toBe(false)
    expect(holds({ body: { '$.tags': { matches: '.*' } } }, { body: plant })).toBe(false)
    expect(holds({ body: { '$.extra': { matches: '.*' } } }, { body: plant })).toBe(false)
    expect(holds({ body: { '$.name': { matches: '.*' } } }, { body: {} })).toBe(false)
  })

  it('counts null as present for exists', () => {
    expect(holds({ body: { '$.extra': { exists: true } } }, { body: plant })).toBe(true)
    expect(holds({ body: { '$.name': { exists: false } } }, { body: { id: 1 } })).toBe(true)
    expect(holds({ body: { '$.tags[0]': { exists: true } } }, { body: plant })).toBe(true)
    expect(holds({ body: { '$.tags[1]': { exists: true } } }, { body: plant })).toBe(false)
    expect(holds({ body: { $: { exists: false } } }, {})).toBe(true)
  })

  it('compares with in and the order operators', () => {
    expect(holds({ body: { '$.pot.size': { in: [3, 4] } } }, { body: plant })).toBe(true)
    expect(holds({ body: { '$.pot': { in: [{ size: 4 }] } } }, { body: plant })).toBe(true)
    expect(holds({ body: { '$.pot.size': { in: [5, '4'] } } }, { body: plant })).toBe(false)
    expect(holds({ body: { '$.pot.size': { gt: 3, lt: 5, gte: 4, lte: 4 } } }, { body: plant })).toBe(true)
    expect(failing({ body: { '$.pot.size': { gt: 4, lt: 4, gte: 5, lte: 3 } } }, { body: plant })).toBe(4)
    expect(holds({ body: { '$.name': { gt: 0 } } }, { body: plant })).toBe(false)
    expect(holds({ body: { '$.price': { gt: 1 } } }, { body: { price: '2' } })).toBe(false)
  })

  it('reads own fields only', () => {
    const open = { ...target, bodySchema: {} }
    expect(holds({ body: { '$.constructor': { exists: false } } }, { body: {} }, open)).toBe(true)
    expect(holds({ body: { '$.__proto__': { exists: false } } }, { body: {} }, open)).toBe(true)
    const own = JSON.parse('{"__proto__": 1}')
    expect(holds({ body: { '$.__proto__': 1 } }, { body: own }, open)).toBe(true)
  })
})

describe('compileConditions: query, headers, params, cookies, session', () => {
  it('compares query text with strings, numbers and booleans', () => {
    expect(holds({ query: { limit: 10 } }, { query: 'limit=10.0&limit=3' })).toBe(true)
    expect(holds({ query: { limit: { equals: '10' } } }, { query: 'limit=10' })).toBe(true)
    expect(holds({ query: { limit: { equals: '10' } } }, { query: 'limit=10.0' })).toBe(false)
    expect(holds({ query: { all: true } }, { query: 'all=true' })).toBe(true)
    expect(holds({ query: { all: true } }, { query: 'all=1' })).toBe(false)
    expect(holds({ query: { limit: { in: [10, 20] } } }, { query: 'limit=20' })).toBe(true)
    expect(holds({ query: { limit: { in: [10, 20] } } }, { query: 'limit=x' })).toBe(false)
    expect(holds({ query: { limit: { matches: '^\\d+$' } } }, { query: 'limit=12' })).toBe(true)
    expect(holds({ query: { limit: { exists: true } } }, { query: 'limit=' })).toBe(true)
    expect(holds({ query: { limit: { exists: false } } }, { query: 'other=1' })).toBe(true)
    expect(holds({ query: { limit: { gt: 5, lte: 10 } } }, { query: 'limit=1e1' })).toBe(true)
    expect(holds({ query: { limit: { gte: 5 } } }, { query: 'limit=five' })).toBe(false)
    expect(holds({ query: { limit: { lt: 5 } } }, { query: 'limit=+3' })).toBe(false)
  })

  it('reads headers by any case of the name', () => {
    const when = { headers: { 'X-Tenant': { matches: '^beta-' } } }
    expect(holds(when, { headers: { 'x-tenant': 'beta-7' } })).toBe(true)
    expect(holds(when, { headers: { 'X-TENANT': 'gamma' } })).toBe(false)
    expect(holds({ headers: { 'X-Count': { lt: 3 } } }, { headers: { 'x-count': '2' } })).toBe(true)
    expect(holds({ headers: { 'X-Tenant': { exists: false } } }, {})).toBe(true)
  })

  it('compares path parameters percent-decoded, keeping broken escapes as sent', () => {
    expect(holds({ params: { plantId: 5 } }, { params: { plantId: '5' } })).toBe(true)
    expect(holds({ params: { plantId: 'a b' } }, { params: { plantId: 'a%20b' } })).toBe(true)
    expect(holds({ params: { plantId: '100%' } }, { params: { plantId: '100%' } })).toBe(true)
    expect(holds({ params: { plantId: { in: [1, 2] } } }, { params: { plantId: '3' } })).toBe(false)
    expect(holds({ params: { plantId: { gte: 3 } } }, { params: { plantId: '3' } })).toBe(true)
  })

  it('reads cookies and the session', () => {
    expect(holds({ cookies: { sid: { exists: true } } }, { cookies: { sid: 'x' } })).toBe(true)
    expect(holds({ cookies: { sid: { exists: true } } }, {})).toBe(false)
    expect(holds({ cookies: { sid: { equals: 'x', matches: '^x$' } } }, { cookies: { sid: 'x' } })).toBe(true)
    expect(holds({ session: 'worker-1' }, { session: 'worker-1' })).toBe(true)
    expect(holds({ session: { matches: '^worker-' } }, { session: 'worker-2' })).toBe(true)
    expect(holds({ session: { exists: false } }, {})).toBe(true)
    expect(holds({ session: { in: ['a', 'b'] } }, {})).toBe(false)
  })
})

describe('compileConditions: every operator on every text location', () => {
  const operators = { equals: 5, matches: '^5$', exists: true, in: ['4', 5], gt: 4, lt: 6, gte: 5, lte: 5 }
  const wrong = { equals: '5.0', matches: '^6', exists: false, in: [4], gt: 5, lt: 5, gte: 6, lte: 4 }
  const cases: Array<[string, (map: object) => object, Exchange]> = [
    ['query', (map) => ({ query: { n: map } }), { query: 'n=5' }],
    ['headers', (map) => ({ headers: { N: map } }), { headers: { n: '5' } }],
    ['params', (map) => ({ params: { plantId: map } }), { params: { plantId: '%35' } }],
    ['cookies', (map) => ({ cookies: { n: map } }), { cookies: { n: '5' } }],
    ['session', (map) => ({ session: map }), { session: '5' }],
  ]

  it.each(cases)('reads %s with each operator', (_, when, request) => {
    expect(failing(when(operators), request)).toBe(0)
    expect(failing(when(wrong), request)).toBe(8)
  })
})

describe('compileConditions: exact integers', () => {
  const big = 9007199254740993n

  it('compares integers beyond 2^53 exactly, from bigint and LosslessNumber operands', () => {
    const ofBigInt = compileConditions({ body: { '$.id': { equals: big } } }, target)
    expect(ofBigInt.readsExactBody).toBe(true)
    expect(ofBigInt.check(exchange({ body: { id: new LosslessNumber('9007199254740993') } }))).toBe(0)
    expect(ofBigInt.check(exchange({ body: { id: new LosslessNumber('9007199254740992') } }))).toBe(1)
    expect(ofBigInt.check(exchange({ body: { id: 9007199254740992 } }))).toBe(1)
    const ofLossless = { body: { '$.id': { in: [new LosslessNumber('9007199254740993')] } } }
    expect(holds(ofLossless, { body: { id: new LosslessNumber('9007199254740993') } })).toBe(true)
    expect(holds(ofLossless, { body: { id: new LosslessNumber('9007199254740992') } })).toBe(false)
    expect(holds({ body: { '$.id': { gt: 9007199254740992n } } }, { body: { id: new LosslessNumber(`${big}`) } })).toBe(
      true,
    )
  })

  it('reads small LosslessNumber body values by value', () => {
    expect(holds({ body: { '$.id': 7 } }, { body: { id: new LosslessNumber('7.0') } })).toBe(true)
    expect(holds({ body: { '$.id': { matches: '^7$' } } }, { body: { id: new LosslessNumber('7') } })).toBe(true)
    expect(readJsonPath({ id: new LosslessNumber('7') }, ['id', 'value'])).toBeUndefined()
  })

  it('compares query text beyond 2^53 exactly', () => {
    expect(holds({ query: { id: big } }, { query: 'id=9007199254740993' })).toBe(true)
    expect(holds({ query: { id: big } }, { query: 'id=9007199254740992' })).toBe(false)
    expect(holds({ query: { id: big } }, { query: 'id=9007199254740993.0' })).toBe(true)
    expect(holds({ query: { id: { lt: big } } }, { query: 'id=9007199254740992' })).toBe(true)
    expect(holds({ query: { id: new LosslessNumber('9007199254740993') } }, { query: 'id=9007199254740993' })).toBe(
      true,
    )
  })

  it('reads the body exactly only where a body operand needs it', () => {
    expect(compileConditions({ body: { '$.id': 7 } }, target).readsExactBody).toBe(false)
    expect(compileConditions({ query: { id: big } }, target).readsExactBody).toBe(false)
    expect(compileConditions({ body: { '$.id': { lt: -big } } }, target).readsExactBody).toBe(true)
    expect(compileConditions({ body: { $: { equals: { id: [big] } } } }, target).readsExactBody).toBe(true)
  })
})

describe('compileConditions: JSON paths', () => {
  it('reads $, fields, indexes and quoted names', () => {
    const open = { ...target, bodySchema: {} }
    const body = { 'odd key': 'x', x: { y: [0, 'z'] } }
    expect(holds({ body: { "$['odd key']": 'x' } }, { body })).toBe(true)
    expect(holds({ body: { '$["x"].y[1]': 'z' } }, { body }, open)).toBe(true)
    expect(holds({ body: { $: { equals: body } } }, { body }, open)).toBe(true)
    expect(holds({ body: { '$.x.y.0': { exists: true } } }, { body }, open)).toBe(false)
  })

  it('parses and writes back paths', () => {
    expect(parseJsonPath('$')).toEqual([])
    expect(parseJsonPath("$.tags[0]['a\\'b'][\"c\"]")).toEqual(['tags', 0, "a'b", 'c'])
    expect(formatJsonPath(['pot', 'odd key', 2])).toBe("$.pot['odd key'][2]")
    expect(readJsonPath([{ a: 1 }], [0, 'a'])).toBe(1)
    expect(readJsonPath({ a: 'text' }, ['a', 'length'])).toBeUndefined()
  })

  it.each([
    ['$.', 'is followed by no field name'],
    ['name', 'a path starts at $'],
    ['$.tags[x]', '[x] is neither an index'],
    ['$.tags[0', 'is never closed'],
    ["$['a", 'is never closed'],
    ['$.tags[*]', 'not supported'],
    ['$.*', 'not supported'],
    ['$..name', 'not supported'],
    ['$.tags[?(@.a)]', 'not supported'],
    ['$.tags[0:2]', 'not supported'],
    ['$name', 'is no step'],
  ])('rejects the path %s', (path, message) => {
    expect(problem({ body: { [path]: { exists: true } } })).toContain(`when.body[${JSON.stringify(path)}]: `)
    expect(problem({ body: { [path]: { exists: true } } })).toContain(message)
  })
})

describe('compileConditions: rules written wrong', () => {
  it('rejects paths the request body schema makes impossible', () => {
    expect(problem({ body: { '$.pot.colour': 'red' } })).toBe(
      'when.body["$.pot.colour"]: the request body schema has no "colour" at $.pot.',
    )
    expect(problem({ body: { '$.nmae': 'x' } })).toContain('has no "nmae" at $')
    expect(problem({ body: { '$.name.first': 'x' } })).toContain('has no "first" at $.name')
    expect(problem({ body: { '$.tags.first': 'x' } })).toContain('has no "first" at $.tags')
    expect(problem({ body: { '$.tags[0].x': 'x' } })).toContain('has no "x" at $.tags[0]')
    expect(holds({ body: { '$.extra.any.thing[3]': { exists: false } } }, { body: {} })).toBe(true)
  })

  it('rejects body conditions where the operation takes no JSON body, except that the body is absent', () => {
    const noBody = { ...target, bodySchema: undefined }
    expect(problem({ body: { '$.name': 'x' } }, noBody)).toBe(
      'when.body["$.name"]: the operation takes no JSON request body.',
    )
    expect(problem({ body: { $: { exists: true } } }, noBody)).toContain('takes no JSON request body')
    expect(holds({ body: { $: { exists: false } } }, {}, noBody)).toBe(true)
  })

  it('rejects path parameters the operation does not declare, listing those it does', () => {
    expect(problem({ params: { id: 1 } })).toBe(
      'when.params["id"]: the operation has no path parameter "id"; it declares plantId.',
    )
    expect(problem({ params: { id: 1 } }, { ...target, pathParameters: [] })).toContain('it declares none')
  })

  it('names unknown operators and locations, wrong operands and empty maps', () => {
    expect(problem({ body: { '$.name': { equal: 'x' } } })).toBe(
      'when.body["$.name"]: "equal" is no operator; use equals, matches, exists, in, gt, lt, gte, lte.',
    )
    expect(problem({ bodyy: {} })).toBe(
      'when: "bodyy" is no location; use body, query, headers, params, cookies, session.',
    )
    expect(problem({})).toBe('when: lists no condition.')
    expect(problem('x')).toContain('when: expected a map')
    expect(problem({ query: {} })).toBe('when.query: names nothing.')
    expect(problem({ query: 5 })).toContain('when.query: expected a map')
    expect(problem({ query: { limit: {} } })).toContain('when.query["limit"]: lists no operator')
    expect(problem({ query: { limit: [1] } })).toContain('when.query["limit"]: expected a value or a map')
    expect(problem({ query: { limit: { in: 5 } } })).toBe('when.query["limit"].in: expected a non-empty list.')
    expect(problem({ query: { limit: { in: [] } } })).toContain('expected a non-empty list')
    expect(problem({ query: { limit: { in: [1, {}] } } })).toContain('when.query["limit"].in[1]: expected a string')
    expect(problem({ query: { limit: null } })).toContain('when.query["limit"].equals: expected a string')
    expect(problem({ query: { limit: { exists: 'yes' } } })).toBe('when.query["limit"].exists: expected true or false.')
    expect(problem({ query: { limit: { gt: '3' } } })).toBe('when.query["limit"].gt: expected a number.')
    expect(problem({ query: { limit: { lte: Infinity } } })).toContain('expected a number')
    expect(problem({ query: { limit: { matches: 3 } } })).toContain('.matches: expected a regular expression')
    expect(problem({ session: { equals: 'a', is: 'b' } })).toContain('when.session: "is" is no operator')
  })

  it('rejects a malformed regular expression, naming it and what the engine says', () => {
    expect(problem({ headers: { 'X-Tenant': { matches: '[z-a]' } } })).toMatch(
      /^when\.headers\["X-Tenant"\]\.matches: \/\[z-a\]\/ is no regular expression \(Invalid regular expression: .+\)\.$/,
    )
  })
})

describe('compileConditions: matching', () => {
  it('runs ^(a+)+$ in linear time', () => {
    const conditions = compileConditions({ query: { q: { matches: '^(a+)+$' } } }, target)
    const request = exchange({ query: `q=${'a'.repeat(40)}!` })
    for (let i = 0; i < 100; i++) expect(conditions.check(request)).toBe(1)
    expect(conditions.check(exchange({ query: `q=${'a'.repeat(40)}` }))).toBe(0)
  })

  it('counts every failing condition and reports the first, with the value it read', () => {
    const conditions = compileConditions(
      { query: { limit: { gt: 5, lt: 8 } }, headers: { 'X-Tenant': 'beta' }, body: { '$.name': { exists: true } } },
      target,
    )
    expect(conditions.count).toBe(4)
    const miss: Miss = { condition: -1, actual: 'untouched' }
    expect(conditions.check(exchange({ query: 'limit=9', body: {} }), miss)).toBe(3)
    expect(miss).toEqual({ condition: 1, actual: '9' })
    expect(conditions.check(exchange({ query: 'limit=7', body: {} }), miss)).toBe(2)
    expect(miss).toEqual({ condition: 2, actual: undefined })
    const fresh: Miss = { condition: -1, actual: 'untouched' }
    expect(
      conditions.check(exchange({ query: 'limit=7', headers: { 'x-tenant': 'beta' }, body: { name: 'x' } }), fresh),
    ).toBe(0)
    expect(fresh).toEqual({ condition: -1, actual: 'untouched' })
  })

  it('describes each condition as a user reads it', () => {
    const conditions = compileConditions(
      {
        body: { '$.name': 'Poison Ivy', '$.pot.size': { gt: 3 }, '$.id': { equals: 9007199254740993n, exists: false } },
        headers: { 'X-Tenant': { matches: '^beta-' } },
        query: { limit: { in: [10, 20] } },
        session: 'worker-1',
        cookies: { sid: { exists: true } },
        params: { plantId: new LosslessNumber('9223372036854775807') },
      },
      target,
    )
    expect(Array.from({ length: conditions.count }, (_, i) => conditions.describe(i))).toEqual([
      'body $.name equals "Poison Ivy"',
      'body $.pot.size gt 3',
      'body $.id equals 9007199254740993',
      'body $.id does not exist',
      'headers x-tenant matches /^beta-/',
      'query limit in [10,20]',
      'session equals "worker-1"',
      'cookies sid exists',
      'params plantId equals 9223372036854775807',
    ])
  })
})

describe('compilePatternNow', () => {
  it('compiles at once, and answers undefined for a pattern no engine reads', () => {
    expect(compilePatternNow('^(?=a)a$')?.test('a')).toBe(true)
    expect(compilePatternNow('[z-a]')).toBeUndefined()
    expect(compilePattern('[z-a]', 'u').test('anything')).toBe(true)
  })
})
