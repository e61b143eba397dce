/**
 * Scenario rules with conditions (#16), through `createApp().request()`: every operator on the body
 * (JSON paths `$.a`, `$.a.b`, `$.tags[0]`, `$['odd key']`), the shorthand value at every place,
 * several conditions in one rule, and integers beyond 2^53 compared exactly. Each case is a scenario
 * of its own whose one rule answers 503 when its `when` holds; a request it does not hold for gets
 * the usual 200 (`describeConditions`). The other places are in conditional-rules-places.test.ts;
 * order, counts and answers in the conditional-rules-*.test.ts files beside.
 */
import { describe, expect, it } from 'vitest'
import { type ConditionCase, type Sent, describeConditions } from '../support/rule-app.js'

const item = (fields: Record<string, unknown>) => ({ name: 'x', ...fields })
const tenant = (value: string): Sent => ({ headers: { 'x-tenant': value } })

const bodyCases: ConditionCase[] = [
  {
    name: 'body $.a equals',
    when: '{ body: { $.name: { equals: Fern } } }',
    hit: [{ body: { name: 'Fern' } }],
    miss: [{ body: { name: 'fern' } }, { body: { name: 'Fern ' } }],
  },
  {
    name: 'body $.a.b matches',
    when: "{ body: { $.owner.name: { matches: '^A.n$' } } }",
    hit: [{ body: item({ owner: { name: 'Ann' } }) }],
    miss: [{ body: item({ owner: { name: 'Anne' } }) }, { body: item({}) }],
  },
  {
    name: 'body $.tags[0] exists: true',
    when: "{ body: { '$.tags[0]': { exists: true } } }",
    hit: [{ body: item({ tags: ['a'] }) }],
    miss: [{ body: item({ tags: [] }) }, { body: item({}) }],
  },
  {
    name: 'body $.a.b exists: false',
    when: '{ body: { $.owner.name: { exists: false } } }',
    hit: [{ body: item({ owner: { level: 1 } }) }, { body: item({}) }],
    miss: [{ body: item({ owner: { name: 'Ann' } }) }],
  },
  {
    name: "body $['odd key'] in",
    when: `{ body: { "$['odd key']": { in: [red, green] } } }`,
    hit: [{ body: item({ 'odd key': 'green' }) }],
    miss: [{ body: item({ 'odd key': 'blue' }) }, { body: item({}) }],
  },
  {
    name: 'body gt',
    when: '{ body: { $.count: { gt: 5 } } }',
    hit: [{ body: item({ count: 6 }) }],
    miss: [{ body: item({ count: 5 }) }, { body: item({}) }],
  },
  {
    name: 'body lt',
    when: '{ body: { $.owner.level: { lt: 3 } } }',
    hit: [{ body: item({ owner: { level: 2 } }) }],
    miss: [{ body: item({ owner: { level: 3 } }) }],
  },
  {
    name: 'body gte',
    when: '{ body: { $.count: { gte: 5 } } }',
    hit: [{ body: item({ count: 5 }) }],
    miss: [{ body: item({ count: 4 }) }],
  },
  {
    name: 'body lte',
    when: '{ body: { $.count: { lte: -1 } } }',
    hit: [{ body: item({ count: -1 }) }],
    miss: [{ body: item({ count: 0 }) }],
  },
  {
    name: 'body equals an object as JSON, numbers by value',
    when: '{ body: { $.owner: { equals: { name: Ann, level: 2 } } } }',
    hit: [{ body: '{"name":"x","owner":{"level":2.0,"name":"Ann"}}' }],
    miss: [{ body: item({ owner: { name: 'Ann' } }) }, { body: item({ owner: { name: 'Ann', level: 3 } }) }],
  },
  {
    name: 'body matches a number as its JSON text',
    when: "{ body: { $.count: { matches: '^1\\d$' } } }",
    hit: [{ body: item({ count: 12 }) }],
    miss: [{ body: item({ count: 21 }) }],
  },
]

const shorthandCases: ConditionCase[] = [
  {
    name: 'a body string',
    when: '{ body: { $.name: Fern } }',
    hit: [{ body: { name: 'Fern' } }],
    miss: [{ body: { name: 'Fig' } }],
  },
  {
    name: 'a body number',
    when: '{ body: { $.count: 5 } }',
    hit: [{ body: '{"name":"x","count":5.0}' }],
    miss: [{ body: item({ count: 6 }) }],
  },
  {
    name: 'a query string',
    when: '{ query: { view: full } }',
    hit: [{ path: '/items/x?view=full' }],
    miss: [{ path: '/items/x?view=half' }],
  },
  {
    name: 'a query boolean',
    when: '{ query: { view: true } }',
    hit: [{ path: '/items/x?view=true' }],
    miss: [{ path: '/items/x?view=1' }],
  },
  { name: 'a header', when: '{ headers: { x-tenant: beta } }', hit: [tenant('beta')], miss: [tenant('alpha')] },
  {
    name: 'a path parameter number',
    when: '{ params: { itemId: 42 } }',
    hit: [{ path: '/items/42' }],
    miss: [{ path: '/items/420' }],
  },
  {
    name: 'a cookie',
    when: '{ cookies: { flavour: mint } }',
    hit: [{ cookie: 'flavour=mint' }],
    miss: [{ cookie: 'flavour=lime' }],
  },
  {
    name: 'the session',
    when: '{ session: worker-1 }',
    hit: [{ session: 'worker-1' }],
    miss: [{ session: 'worker-2' }],
  },
]

const fern = { name: 'Fern', count: 2 }
const allOf: ConditionCase[] = [
  {
    name: 'every condition of a rule must hold, across places',
    when: '{ body: { $.name: Fern, $.count: { gte: 2 } }, headers: { x-tenant: beta }, session: { exists: true } }',
    hit: [{ body: fern, headers: { 'x-tenant': 'beta' }, session: 's' }],
    miss: [
      { body: { ...fern, name: 'Fig' }, headers: { 'x-tenant': 'beta' }, session: 's' },
      { body: { ...fern, count: 1 }, headers: { 'x-tenant': 'beta' }, session: 's' },
      { body: fern, headers: { 'x-tenant': 'alpha' }, session: 's' },
      { body: fern, headers: { 'x-tenant': 'beta' } },
    ],
  },
  {
    name: 'two operators on one place must both hold',
    when: '{ query: { limit: { gte: 2, lt: 4 } } }',
    hit: [{ path: '/items/x?limit=2' }, { path: '/items/x?limit=3' }],
    miss: [{ path: '/items/x?limit=1' }, { path: '/items/x?limit=4' }],
  },
]

const big = (count: string) => `{"name":"x","count":${count}}`
const int64Cases: ConditionCase[] = [
  {
    name: 'equals 9007199254740993 holds for that int64 only, not for 9007199254740992',
    when: '{ body: { $.count: { equals: 9007199254740993 } } }',
    hit: [{ body: big('9007199254740993') }],
    miss: [{ body: big('9007199254740992') }, { body: big('9007199254740994') }],
  },
  {
    name: 'equals 9007199254740992 does not hold for 9007199254740993, which a double reads as it',
    when: '{ body: { $.count: { equals: 9007199254740992 } } }',
    hit: [{ body: big('9007199254740992') }],
    miss: [{ body: big('9007199254740993') }],
  },
  {
    name: 'a negative int64 compares exactly',
    when: '{ body: { $.count: { lte: -9007199254740993 } } }',
    hit: [{ body: big('-9007199254740993') }, { body: big('-9223372036854775808') }],
    miss: [{ body: big('-9007199254740992') }],
  },
  {
    name: 'the shorthand int64 is exact too',
    when: '{ body: { $.count: 9007199254740993 } }',
    hit: [{ body: big('9007199254740993') }],
    miss: [{ body: big('9007199254740992') }],
  },
  {
    name: 'gt 9007199254740992 holds for 9007199254740993',
    when: '{ body: { $.count: { gt: 9007199254740992 } } }',
    hit: [{ body: big('9007199254740993') }],
    miss: [{ body: big('9007199254740992') }],
  },
  {
    name: 'in compares each int64 exactly',
    when: '{ body: { $.count: { in: [1, 9007199254740993] } } }',
    hit: [{ body: big('9007199254740993') }, { body: big('1') }],
    miss: [{ body: big('9007199254740992') }],
  },
  {
    name: 'a query int64 compares exactly',
    when: '{ query: { limit: { equals: 9007199254740993 } } }',
    hit: [{ path: '/items/x?limit=9007199254740993' }],
    miss: [{ path: '/items/x?limit=9007199254740992' }],
  },
]

const { app, scenarioOf, statusFor } = describeConditions([
  ['every operator on the body', bodyCases],
  ['a plain value is short for equals', shorthandCases],
  ['several conditions', allOf],
  ['integers beyond 2^53', int64Cases],
])

describe('conditions (#16): what the journal says of a case', () => {
  it('names the rule that answered, and the condition that failed closest', async () => {
    const c = bodyCases[0]!
    expect(await statusFor(c, { body: { name: 'Fern' } })).toBe(503)
    expect(await statusFor(c, { body: { name: 'Fig' } })).toBe(200)
    const [hit, miss] = app().mock.requests().slice(-2)
    expect(hit?.answeredBy).toBe(`scenario ${scenarioOf(c)}, addItem rule 1`)
    expect(hit?.nearMiss).toBeUndefined()
    expect(miss?.answeredBy).toBeUndefined()
    expect(miss?.nearMiss).toEqual({
      rule: `scenario ${scenarioOf(c)}, addItem rule 1`,
      condition: 'body $.name equals "Fern"',
      actual: '"Fig"',
    })
  })
})
