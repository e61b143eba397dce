/**
 * Scenario rules with conditions (#16), through `createApp().request()`: every operator on the query,
 * headers (names in any case), path parameters (percent-decoded), cookies and the session
 * (X-Mock-Session). Each case is a scenario of its own whose one rule answers 503 when its `when`
 * holds; a request it does not hold for gets the usual 200 (`describeConditions`). The body, the
 * shorthand, several conditions and int64 are in conditional-rules.test.ts.
 */
import { type ConditionCase, type Sent, describeConditions } from '../support/rule-app.js'

const queryCases: ConditionCase[] = [
  {
    name: 'query equals',
    when: '{ query: { view: { equals: full } } }',
    hit: [{ path: '/items/x?view=full' }],
    miss: [{ path: '/items/x?view=fully' }, { path: '/items/x' }],
  },
  {
    name: 'query matches',
    when: "{ query: { view: { matches: '^fu' } } }",
    hit: [{ path: '/items/x?view=fully' }],
    miss: [{ path: '/items/x?view=brief' }],
  },
  {
    name: 'query exists: true',
    when: '{ query: { view: { exists: true } } }',
    hit: [{ path: '/items/x?view=brief' }],
    miss: [{ path: '/items/x?limit=1' }],
  },
  {
    name: 'query exists: false',
    when: '{ query: { view: { exists: false } } }',
    hit: [{ path: '/items/x?limit=1' }],
    miss: [{ path: '/items/x?view=brief' }],
  },
  {
    name: 'query in',
    when: '{ query: { view: { in: [brief, short] } } }',
    hit: [{ path: '/items/x?view=short' }],
    miss: [{ path: '/items/x?view=full' }],
  },
  {
    name: 'query gt',
    when: '{ query: { limit: { gt: 10 } } }',
    hit: [{ path: '/items/x?limit=11' }],
    miss: [{ path: '/items/x?limit=10' }],
  },
  {
    name: 'query lt',
    when: '{ query: { limit: { lt: 10 } } }',
    hit: [{ path: '/items/x?limit=9' }],
    miss: [{ path: '/items/x?limit=10' }],
  },
  {
    name: 'query gte',
    when: '{ query: { limit: { gte: 10 } } }',
    hit: [{ path: '/items/x?limit=10' }],
    miss: [{ path: '/items/x?limit=9' }],
  },
  {
    name: 'query lte',
    when: '{ query: { limit: { lte: 10 } } }',
    hit: [{ path: '/items/x?limit=10' }],
    miss: [{ path: '/items/x?limit=11' }],
  },
]

const tenant = (value: string, name = 'x-tenant'): Sent => ({ headers: { [name]: value } })
const level = (value: string): Sent => ({ headers: { 'x-level': value } })

const headerCases: ConditionCase[] = [
  {
    name: 'headers equals, the rule naming the header in another case',
    when: '{ headers: { X-Tenant: { equals: beta } } }',
    hit: [tenant('beta'), tenant('beta', 'X-TENANT')],
    miss: [tenant('Beta'), {}],
  },
  {
    name: 'headers matches, the request naming the header in upper case',
    when: "{ headers: { x-tenant: { matches: '^be' } } }",
    hit: [tenant('beta-2', 'X-TENANT')],
    miss: [tenant('alpha')],
  },
  { name: 'headers exists: true', when: '{ headers: { x-tenant: { exists: true } } }', hit: [tenant('a')], miss: [{}] },
  {
    name: 'headers exists: false',
    when: '{ headers: { x-tenant: { exists: false } } }',
    hit: [{}],
    miss: [tenant('a')],
  },
  {
    name: 'headers in',
    when: '{ headers: { x-tenant: { in: [beta, gamma] } } }',
    hit: [tenant('gamma')],
    miss: [tenant('delta')],
  },
  {
    name: 'headers gt',
    when: '{ headers: { x-level: { gt: 2 } } }',
    hit: [level('3')],
    miss: [level('2'), level('three')],
  },
  { name: 'headers lt', when: '{ headers: { x-level: { lt: 2 } } }', hit: [level('1.5')], miss: [level('2')] },
  { name: 'headers gte', when: '{ headers: { x-level: { gte: 2 } } }', hit: [level('2')], miss: [level('1')] },
  { name: 'headers lte', when: '{ headers: { x-level: { lte: 2 } } }', hit: [level('2.0')], miss: [level('3')] },
]

const paramCases: ConditionCase[] = [
  {
    name: 'params equals, percent-decoded',
    when: "{ params: { itemId: { equals: 'a b' } } }",
    hit: [{ path: '/items/a%20b' }],
    miss: [{ path: '/items/a+b' }, { path: '/items/ab' }],
  },
  {
    name: 'params matches, percent-decoded as UTF-8',
    when: "{ params: { itemId: { matches: '^café$' } } }",
    hit: [{ path: '/items/caf%C3%A9' }],
    miss: [{ path: '/items/cafe' }],
  },
  { name: 'params exists: true', when: '{ params: { itemId: { exists: true } } }', hit: [{ path: '/items/x' }] },
  { name: 'params exists: false', when: '{ params: { itemId: { exists: false } } }', miss: [{ path: '/items/x' }] },
  {
    name: 'params in, an encoded slash decoded',
    when: '{ params: { itemId: { in: [a/b, c] } } }',
    hit: [{ path: '/items/a%2Fb' }, { path: '/items/c' }],
    miss: [{ path: '/items/a' }],
  },
  {
    name: 'params gt',
    when: '{ params: { itemId: { gt: 10 } } }',
    hit: [{ path: '/items/11' }],
    miss: [{ path: '/items/10' }],
  },
  {
    name: 'params lt',
    when: '{ params: { itemId: { lt: 10 } } }',
    hit: [{ path: '/items/9' }],
    miss: [{ path: '/items/10' }],
  },
  {
    name: 'params gte',
    when: '{ params: { itemId: { gte: 10 } } }',
    hit: [{ path: '/items/10' }],
    miss: [{ path: '/items/9' }],
  },
  {
    name: 'params lte',
    when: '{ params: { itemId: { lte: 10 } } }',
    hit: [{ path: '/items/1e1' }],
    miss: [{ path: '/items/11' }],
  },
]

const cookieCases: ConditionCase[] = [
  {
    name: 'cookies equals',
    when: '{ cookies: { flavour: { equals: mint } } }',
    hit: [{ cookie: 'flavour=mint' }, { cookie: 'size=1; flavour=mint' }],
    miss: [{ cookie: 'flavour=lemon' }, {}],
  },
  {
    name: 'cookies matches',
    when: "{ cookies: { flavour: { matches: '^mi' } } }",
    hit: [{ cookie: 'flavour=mild' }],
    miss: [{ cookie: 'flavour=lemon' }],
  },
  {
    name: 'cookies exists: true',
    when: '{ cookies: { flavour: { exists: true } } }',
    hit: [{ cookie: 'flavour=x' }],
    miss: [{ cookie: 'size=1' }],
  },
  {
    name: 'cookies exists: false',
    when: '{ cookies: { flavour: { exists: false } } }',
    hit: [{ cookie: 'size=1' }, {}],
    miss: [{ cookie: 'flavour=x' }],
  },
  {
    name: 'cookies in',
    when: '{ cookies: { flavour: { in: [mint, lime] } } }',
    hit: [{ cookie: 'flavour=lime' }],
    miss: [{ cookie: 'flavour=lemon' }],
  },
  {
    name: 'cookies gt',
    when: '{ cookies: { size: { gt: 5 } } }',
    hit: [{ cookie: 'size=6' }],
    miss: [{ cookie: 'size=5' }],
  },
  {
    name: 'cookies lt',
    when: '{ cookies: { size: { lt: 5 } } }',
    hit: [{ cookie: 'size=4' }],
    miss: [{ cookie: 'size=5' }],
  },
  {
    name: 'cookies gte',
    when: '{ cookies: { size: { gte: 5 } } }',
    hit: [{ cookie: 'size=5' }],
    miss: [{ cookie: 'size=4' }],
  },
  {
    name: 'cookies lte',
    when: '{ cookies: { size: { lte: 5 } } }',
    hit: [{ cookie: 'size=5' }],
    miss: [{ cookie: 'size=6' }],
  },
]

const sessionCases: ConditionCase[] = [
  {
    name: 'session equals',
    when: '{ session: { equals: worker-1 } }',
    hit: [{ session: 'worker-1' }],
    miss: [{ session: 'worker-10' }, {}],
  },
  {
    name: 'session matches',
    when: "{ session: { matches: '^worker-\\d+$' } }",
    hit: [{ session: 'worker-7' }],
    miss: [{ session: 'robot-7' }],
  },
  { name: 'session exists: true', when: '{ session: { exists: true } }', hit: [{ session: 'a' }], miss: [{}] },
  { name: 'session exists: false', when: '{ session: { exists: false } }', hit: [{}], miss: [{ session: 'a' }] },
  { name: 'session in', when: '{ session: { in: [a, b] } }', hit: [{ session: 'b' }], miss: [{ session: 'c' }] },
  {
    name: 'session gt',
    when: '{ session: { gt: 5 } }',
    hit: [{ session: '6' }],
    miss: [{ session: '5' }, { session: 'six' }],
  },
  { name: 'session lt', when: '{ session: { lt: 5 } }', hit: [{ session: '4' }], miss: [{ session: '5' }] },
  { name: 'session gte', when: '{ session: { gte: 5 } }', hit: [{ session: '5' }], miss: [{ session: '4' }] },
  { name: 'session lte', when: '{ session: { lte: 5 } }', hit: [{ session: '5' }], miss: [{ session: '6' }] },
]

describeConditions([
  ['every operator on the query', queryCases],
  ['every operator on headers', headerCases],
  ['every operator on path parameters', paramCases],
  ['every operator on cookies', cookieCases],
  ['every operator on the session', sessionCases],
])
