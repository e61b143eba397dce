/**
 * Request controls and reported violations (#13), in one table that every transport runs:
 * `test/in-process/request-controls.test.ts` through `app.request()`, `test/socket/request-controls.test.ts`
 * over a socket. Prism's query controls (`?__code=`, `?__example=`, `?__dynamic=`), `--validate
 * strict|report|off` and `Prefer: validate=`, and answers the mock knows to break their declaration
 * (`X-Mock-Violations`, `--errors`). Each case is one behaviour: its request, the answer, the journal entry.
 */
import { fileURLToPath } from 'node:url'
import { expect } from 'vitest'
import type { AppOptions, JournalEntry } from '../../src/index.js'
import type { CaseRequest, Received } from './cases.js'

const specs = {
  /** GET /items (`limit`, an open `flags` object), GET /items/{id} (echoes the query), POST /items (secured, echoes the name). */
  controls: fileURLToPath(new URL('../descriptions/request-controls/openapi.yaml', import.meta.url)),
  /** Answers that break their declaration: a generated body, a 400 body, a made-up Location, an undeclared 204. */
  violations: fileURLToPath(new URL('../descriptions/response-violations.yaml', import.meta.url)),
}

export interface ControlCase {
  name: string
  spec: keyof typeof specs
  options?: Pick<AppOptions, 'validate' | 'errors'>
  request: CaseRequest & { method: string; path: string }
  expect: {
    status: number
    /** The exact JSON body. */
    body?: unknown
    /** Fragments the error message must contain. */
    message?: string[]
    /** `X-Mock-Violations`, parsed, each entry matched in order; absent: the header must be absent. */
    reported?: Array<{ location: string; pointer?: string; message?: string | RegExp }>
    /** The journal entry: valid or not, the request's violation paths, the response's (absent: none). */
    journal: { valid: boolean; violations?: string[]; responseViolations?: string[] }
  }
}

const token = { authorization: 'Bearer t' }
const json = { ...token, 'content-type': 'application/json' }
/** Where the body no generator can make breaks its schema: no integer from 1 to 1.5 is a multiple of 2. */
const UNMADE = 'body.count'

export function specOf(testCase: ControlCase): string {
  return specs[testCase.spec]
}

export const controlCases: ControlCase[] = [
  // Prism's query controls, as Prefer
  {
    name: '?__code=404 serves the declared 404 as Prefer: code=404 does',
    spec: 'controls',
    request: { method: 'GET', path: '/items?__code=404' },
    expect: { status: 404, body: { error: 404, message: 'gone' }, journal: { valid: true } },
  },
  {
    name: '?__example=ivy serves the example of that name',
    spec: 'controls',
    request: { method: 'GET', path: '/items?__example=ivy' },
    expect: { status: 200, body: { name: 'ivy' }, journal: { valid: true } },
  },
  {
    name: '?__dynamic=false serves the first example',
    spec: 'controls',
    request: { method: 'GET', path: '/items?__dynamic=false' },
    expect: { status: 200, body: { name: 'fern' }, journal: { valid: true } },
  },
  {
    name: '?__code=abc gets the same 422 as a bad Prefer: code=, naming __code',
    spec: 'controls',
    request: { method: 'GET', path: '/items?__code=abc' },
    expect: { status: 422, message: ['__code= must be an HTTP status'], journal: { valid: true } },
  },
  {
    name: '?__code=500 names a status the operation does not declare: 404 listing the declared ones, as Prism answers (#30)',
    spec: 'controls',
    request: { method: 'GET', path: '/items?__code=500' },
    expect: {
      status: 404,
      message: ['__code=500 names a status that listItems does not declare (declared: 200, 404)'],
      journal: { valid: true },
    },
  },
  {
    name: '?__example=nope gets 404 listing the examples there are, as Prism answers (#30)',
    spec: 'controls',
    request: { method: 'GET', path: '/items?__example=nope' },
    expect: {
      status: 404,
      message: ['__example=nope matches no fixture or example of listItems', 'ivy (200)'],
      journal: { valid: true },
    },
  },
  {
    name: '?__dynamic=maybe gets 422: true or false only',
    spec: 'controls',
    request: { method: 'GET', path: '/items?__dynamic=maybe' },
    expect: { status: 422, message: ['__dynamic= must be true or false, got "maybe"'], journal: { valid: true } },
  },
  {
    name: 'Prefer: code=200 wins over ?__code=404',
    spec: 'controls',
    request: { method: 'GET', path: '/items?__code=404', headers: { prefer: 'code=200' } },
    expect: { status: 200, body: { name: 'fern' }, journal: { valid: true } },
  },
  {
    name: 'a Prefer naming dynamic sets every query control aside, a bad one included',
    spec: 'controls',
    request: { method: 'GET', path: '/items?__code=404&__dynamic=maybe', headers: { prefer: 'dynamic=false' } },
    expect: { status: 200, body: { name: 'fern' }, journal: { valid: true } },
  },
  {
    name: 'a Prefer that asks only for a delay leaves ?__code= in force',
    spec: 'controls',
    request: { method: 'GET', path: '/items?__code=404', headers: { prefer: 'delay=0' } },
    expect: { status: 404, body: { error: 404, message: 'gone' }, journal: { valid: true } },
  },
  {
    name: 'of a repeated ?__code= the first counts',
    spec: 'controls',
    request: { method: 'GET', path: '/items?__code=404&__code=200' },
    expect: { status: 404, journal: { valid: true } },
  },

  // The operation never sees them
  {
    name: 'an open query object that takes every other key does not take the controls',
    spec: 'controls',
    request: { method: 'GET', path: '/items?verbose=true&__example=ivy' },
    expect: { status: 200, body: { name: 'ivy' }, journal: { valid: true } },
  },
  {
    name: 'that open query object is strict with any other key',
    spec: 'controls',
    request: { method: 'GET', path: '/items?verbose=yes' },
    expect: {
      status: 422,
      message: ['query.flags.verbose must be a boolean'],
      journal: { valid: false, violations: ['query.flags.verbose'] },
    },
  },
  {
    name: 'declared parameters are still validated beside the controls, before them',
    spec: 'controls',
    request: { method: 'GET', path: '/items?limit=0&__code=404' },
    expect: {
      status: 422,
      message: ['query.limit must be >= 1'],
      journal: { valid: false, violations: ['query.limit'] },
    },
  },
  {
    name: 'a template reading request.query.__code finds nothing; other query values it reads',
    spec: 'controls',
    request: { method: 'GET', path: '/items/7?__code=200&q=x' },
    expect: { status: 200, body: { name: 'item 7', q: 'x' }, journal: { valid: true } },
  },
  {
    name: 'a percent-encoded %5F%5Fcode is no control: an ordinary query parameter',
    spec: 'controls',
    request: { method: 'GET', path: '/items/7?%5F%5Fcode=404' },
    expect: { status: 200, body: { name: 'item 7', code: '404' }, journal: { valid: true } },
  },

  // --validate report
  {
    name: 'report: a query parameter that breaks its schema is answered as valid and reported',
    spec: 'controls',
    options: { validate: 'report' },
    request: { method: 'GET', path: '/items?limit=0' },
    expect: {
      status: 200,
      body: { name: 'fern' },
      reported: [{ location: 'request.query', pointer: '/limit', message: 'must be >= 1' }],
      journal: { valid: false, violations: ['query.limit'] },
    },
  },
  {
    name: 'report: a body that breaks its schema is answered as valid and reported',
    spec: 'controls',
    options: { validate: 'report' },
    request: { method: 'POST', path: '/items', headers: json, body: '{"name":"fern","size":"big"}' },
    expect: {
      status: 201,
      body: { name: 'fern' },
      reported: [{ location: 'request.body', pointer: '/size', message: 'must be an integer' }],
      journal: { valid: false, violations: ['body.size'] },
    },
  },
  {
    name: 'report: malformed JSON is answered as valid, reported, and its templates see no body',
    spec: 'controls',
    options: { validate: 'report' },
    request: { method: 'POST', path: '/items', headers: json, body: '{"name":' },
    expect: {
      status: 201,
      reported: [{ location: 'request.body', pointer: '', message: /^is not valid JSON/ }],
      journal: { valid: false, violations: ['body'] },
    },
  },
  {
    name: 'report: a media type the operation does not declare is reported, not answered 415',
    spec: 'controls',
    options: { validate: 'report' },
    request: { method: 'POST', path: '/items', headers: { ...token, 'content-type': 'text/plain' }, body: 'fern' },
    expect: {
      status: 201,
      reported: [
        {
          location: 'request.header',
          pointer: '/content-type',
          message: 'is "text/plain", which the operation does not accept; send application/json',
        },
      ],
      journal: { valid: false, violations: ['header["content-type"]'] },
    },
  },
  {
    name: 'report: a valid request gets no X-Mock-Violations',
    spec: 'controls',
    options: { validate: 'report' },
    request: { method: 'POST', path: '/items', headers: json, body: '{"name":"fern"}' },
    expect: { status: 201, body: { name: 'fern' }, journal: { valid: true } },
  },
  {
    name: 'report: security still applies',
    spec: 'controls',
    options: { validate: 'report' },
    request: { method: 'POST', path: '/items', headers: { 'content-type': 'application/json' }, body: '{"name":5}' },
    expect: { status: 401, journal: { valid: false } },
  },
  {
    name: 'report: Prefer: validate=strict answers the violations for one request',
    spec: 'controls',
    options: { validate: 'report' },
    request: { method: 'GET', path: '/items?limit=0', headers: { prefer: 'validate=strict' } },
    expect: {
      status: 422,
      message: ['query.limit must be >= 1'],
      journal: { valid: false, violations: ['query.limit'] },
    },
  },

  // --validate off
  {
    name: 'off: parameters are not validated',
    spec: 'controls',
    options: { validate: 'off' },
    request: { method: 'GET', path: '/items?limit=0&verbose=yes' },
    expect: { status: 200, body: { name: 'fern' }, journal: { valid: true } },
  },
  {
    name: 'off: a body is not validated, and its templates read it',
    spec: 'controls',
    options: { validate: 'off' },
    request: { method: 'POST', path: '/items', headers: json, body: '{"name":"fern","size":"big"}' },
    expect: { status: 201, body: { name: 'fern' }, journal: { valid: true } },
  },
  {
    name: 'off: a missing required body is not a violation',
    spec: 'controls',
    options: { validate: 'off' },
    request: { method: 'POST', path: '/items', headers: token },
    expect: { status: 201, journal: { valid: true } },
  },
  {
    name: 'off: malformed JSON cannot be read, so it is reported, and answered as valid',
    spec: 'controls',
    options: { validate: 'off' },
    request: { method: 'POST', path: '/items', headers: json, body: '{"name":' },
    expect: {
      status: 201,
      reported: [{ location: 'request.body', pointer: '', message: /^is not valid JSON/ }],
      journal: { valid: false, violations: ['body'] },
    },
  },
  {
    name: 'off: security still applies',
    spec: 'controls',
    options: { validate: 'off' },
    request: {
      method: 'POST',
      path: '/items',
      headers: { 'content-type': 'application/json' },
      body: '{"name":"fern"}',
    },
    expect: { status: 401, journal: { valid: false } },
  },

  // Prefer: validate= under the default, strict
  {
    name: 'Prefer: validate=false skips validation for one request',
    spec: 'controls',
    request: { method: 'GET', path: '/items?limit=0', headers: { prefer: 'validate=false' } },
    expect: { status: 200, body: { name: 'fern' }, journal: { valid: true } },
  },
  {
    name: 'Prefer: validate=report reports for one request',
    spec: 'controls',
    request: { method: 'GET', path: '/items?limit=0', headers: { prefer: 'validate=report, code=404' } },
    expect: {
      status: 404,
      reported: [{ location: 'request.query', pointer: '/limit' }],
      journal: { valid: false, violations: ['query.limit'] },
    },
  },
  {
    name: 'Prefer: validate=maybe gets 422 naming the words it takes',
    spec: 'controls',
    request: { method: 'GET', path: '/items', headers: { prefer: 'validate=maybe' } },
    expect: { status: 422, message: ['Prefer: validate= must be strict, report or off'], journal: { valid: true } },
  },

  // Answers that break their declaration, without --errors: sent, and reported
  {
    name: 'a generated body no mending could fix is sent with X-Mock-Violations',
    spec: 'violations',
    request: { method: 'GET', path: '/unsatisfiable' },
    expect: {
      status: 200,
      reported: [{ location: 'response.body', pointer: '/count', message: 'must be <= 1.5' }],
      journal: { valid: true, responseViolations: [UNMADE] },
    },
  },
  {
    name: 'request violations come first in X-Mock-Violations, then the response’s',
    spec: 'violations',
    options: { validate: 'report' },
    request: { method: 'GET', path: '/unsatisfiable?limit=x' },
    expect: {
      status: 200,
      reported: [{ location: 'request.query', pointer: '/limit' }, { location: 'response.body' }],
      journal: { valid: false, violations: ['query.limit'], responseViolations: [UNMADE] },
    },
  },
  {
    name: 'a declared 400 body that breaks its schema is sent with X-Mock-Violations, after the request’s own (#30)',
    spec: 'violations',
    request: { method: 'GET', path: '/broken-error?n=x' },
    expect: {
      status: 400,
      reported: [{ location: 'request.query', pointer: '/n' }, { location: 'response.body' }],
      journal: { valid: false, violations: ['query.n'], responseViolations: [UNMADE] },
    },
  },
  {
    name: 'a made-up Location that breaks its header schema is sent and reported',
    spec: 'violations',
    request: { method: 'POST', path: '/made-up-location' },
    expect: {
      status: 201,
      body: { id: 1 },
      reported: [
        { location: 'response.header', pointer: '/location', message: 'must match pattern "^/things/[0-9]+$"' },
      ],
      journal: { valid: true, responseViolations: ['header.location'] },
    },
  },
  {
    name: 'the 204 of an operation that declares no response is reported as undeclared',
    spec: 'violations',
    request: { method: 'POST', path: '/nothing-declared' },
    expect: {
      status: 204,
      reported: [{ location: 'response.status', pointer: '' }],
      journal: { valid: true, responseViolations: ['status'] },
    },
  },
  {
    name: 'an example that meets its schema is sent as it is, with no header',
    spec: 'violations',
    request: { method: 'GET', path: '/fine' },
    expect: { status: 200, body: { id: 7 }, journal: { valid: true } },
  },

  // --errors: a 500 naming the violations instead
  {
    name: 'errors: a generated body that breaks its schema becomes a 500 naming the violation',
    spec: 'violations',
    options: { errors: true },
    request: { method: 'GET', path: '/unsatisfiable' },
    expect: {
      status: 500,
      message: [
        'The 200 response of unsatisfiable the mock was about to send does not match the description (1 problem)',
        `${UNMADE} must be <= 1.5`,
      ],
      reported: [{ location: 'response.body' }],
      journal: { valid: true, responseViolations: [UNMADE] },
    },
  },
  {
    name: 'errors: a declared 400 body that breaks its schema becomes a 500; the journal keeps the request’s violations',
    spec: 'violations',
    options: { errors: true },
    request: { method: 'GET', path: '/broken-error?n=x' },
    expect: {
      status: 500,
      message: ['The 400 response of brokenError'],
      reported: [{ location: 'response.body' }],
      journal: { valid: false, violations: ['query.n'], responseViolations: [UNMADE] },
    },
  },
  {
    name: 'errors: a made-up Location that breaks its schema becomes a 500',
    spec: 'violations',
    options: { errors: true },
    request: { method: 'POST', path: '/made-up-location' },
    expect: {
      status: 500,
      message: ['header.location must match pattern'],
      reported: [{ location: 'response.header' }],
      journal: { valid: true, responseViolations: ['header.location'] },
    },
  },
  {
    name: 'errors: an undeclared 204 becomes a 500',
    spec: 'violations',
    options: { errors: true },
    request: { method: 'POST', path: '/nothing-declared' },
    expect: {
      status: 500,
      message: ['status is 204, which the operation does not declare'],
      reported: [{ location: 'response.status' }],
      journal: { valid: true, responseViolations: ['status'] },
    },
  },
  {
    name: 'errors: an example checked at start-up is sent as it is',
    spec: 'violations',
    options: { errors: true },
    request: { method: 'GET', path: '/fine' },
    expect: { status: 200, body: { id: 7 }, journal: { valid: true } },
  },
  {
    name: 'errors: query controls and report mode go with it',
    spec: 'controls',
    options: { errors: true, validate: 'report' },
    request: { method: 'GET', path: '/items?__example=ivy&limit=0' },
    expect: {
      status: 200,
      body: { name: 'ivy' },
      reported: [{ location: 'request.query', pointer: '/limit' }],
      journal: { valid: false, violations: ['query.limit'] },
    },
  },
]

/** Cases with the same description and options share one app or server. */
export function caseKey(testCase: ControlCase): string {
  return JSON.stringify([testCase.spec, testCase.options?.validate ?? 'strict', testCase.options?.errors ?? false])
}

export function optionsOf(testCase: ControlCase): AppOptions {
  return { spec: specOf(testCase), ...testCase.options }
}

/** Status, body, `X-Mock-Violations` and the journal entry of one case. */
export function expectControlCase(testCase: ControlCase, received: Received, entry: JournalEntry | undefined): void {
  const { expect: expected } = testCase
  expect(received.status, received.text.slice(0, 300)).toBe(expected.status)
  if ('body' in expected) expect(JSON.parse(received.text)).toEqual(expected.body)
  if (expected.message) {
    const { message } = JSON.parse(received.text) as { message: string }
    for (const fragment of expected.message) expect(message).toContain(fragment)
  }
  const header = received.header('x-mock-violations')
  if (expected.reported === undefined) expect(header).toBeNull()
  else {
    expect(header).toMatch(/^[\x20-\x7e]+$/)
    const reported = JSON.parse(header!) as Array<Record<string, string>>
    expect(reported).toHaveLength(expected.reported.length)
    expected.reported.forEach((want, i) => {
      expect(reported[i]!.location).toBe(want.location)
      if (want.pointer !== undefined) expect(reported[i]!.pointer).toBe(want.pointer)
      if (want.message !== undefined)
        expect(reported[i]!.message).toMatch(
          typeof want.message === 'string' ? new RegExp(`^${escape(want.message)}$`) : want.message,
        )
    })
  }
  expect(entry, 'the journal entry').toBeDefined()
  expect(entry!.status).toBe(expected.status)
  expect(entry!.query).toBe(testCase.request.path.split('?')[1] ?? '')
  expect(entry!.valid).toBe(expected.journal.valid)
  expect(entry!.violations.map((v) => v.path)).toEqual(expected.journal.violations ?? [])
  expect(entry!.responseViolations?.map((v) => v.path)).toEqual(expected.journal.responseViolations)
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
