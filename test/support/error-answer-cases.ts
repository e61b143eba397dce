/**
 * Error answers that come from the description (#30 §1), on test/descriptions/prism-error-answers.yaml:
 * one table that `test/in-process/error-answers.test.ts` runs through `app.request()` and
 * `test/socket/prism-error-answers.test.ts` runs over a socket beside Prism 5.14. `mock` is what the mock
 * answers; `prism` what Prism answers where it differs from the mock (else the same status and body).
 */
import { fileURLToPath } from 'node:url'
import { expect } from 'vitest'

export const ERROR_ANSWERS_SPEC = fileURLToPath(new URL('../descriptions/prism-error-answers.yaml', import.meta.url))

export interface ErrorAnswerRequest {
  method?: string
  path: string
  headers?: Record<string, string>
  body?: string
}

export interface ErrorAnswer {
  status: number
  /** The body, parsed as JSON. */
  body?: unknown
  /** Headers that must be there, with these values (a RegExp where the value is long). */
  headers?: Record<string, string | RegExp | null>
}

export interface ErrorAnswerCase {
  name: string
  request: ErrorAnswerRequest
  mock: ErrorAnswer
  /** Prism's answer where it is not the mock's, and why the mock differs. */
  prism?: ErrorAnswer & { why: string }
}

const json = { 'content-type': 'application/json' }
const post = (path: string, headers: Record<string, string> = {}): ErrorAnswerRequest => ({
  method: 'POST',
  path,
  headers: { ...json, ...headers },
  body: '{}',
})

const NAME_REQUIRED_SL = '[{"location":["request","body","name"],"severity":"Error","message":"is required"}]'
const NAME_REQUIRED_MOCK = '[{"location":"request.body","pointer":"/name","message":"is required"}]'

export const errorAnswerCases: ErrorAnswerCase[] = [
  {
    name: 'an invalid request gets the declared 422’s first example, the violations in headers',
    request: post('/things'),
    mock: {
      status: 422,
      body: 'abc',
      headers: {
        'sl-violations': NAME_REQUIRED_SL,
        'x-mock-violations': NAME_REQUIRED_MOCK,
        'x-mock-error': /body\.name is required/,
      },
    },
  },
  {
    name: 'Prefer: example= names which example of the declared 422 answers',
    request: post('/things', { prefer: 'example=long' }),
    mock: { status: 422, body: 'abcdef', headers: { 'sl-violations': NAME_REQUIRED_SL } },
    prism: { status: 422, body: 'abc', why: 'Prism serves the first example of an error whatever Prefer names' },
  },
  {
    name: 'a declared 400 of another shape without an example: a body of its schema, the message in X-Mock-Error',
    request: post('/codes'),
    mock: { status: 400, body: { code: 0, message: 'string' }, headers: { 'x-mock-error': /body\.name/ } },
  },
  {
    name: 'a 4XX range: its example',
    request: { path: '/ranged' },
    mock: { status: 400, body: { problem: 'ranged' }, headers: { 'x-mock-violations': /query/ } },
    prism: {
      status: 422,
      body: { problem: 'ranged' },
      why: 'the status for violations is the first declared of 422, 400 or 4XX, as 400 (the Plant Store’s)',
    },
  },
  {
    name: 'default: its example, with the status for violations',
    request: { path: '/defaulted' },
    mock: { status: 422, body: { problem: 'default' } },
  },
  {
    name: 'a refused credential gets the declared 401’s example, and a challenge naming every scheme of the requirement',
    request: { path: '/secure' },
    mock: {
      status: 401,
      body: { reason: 'who are you' },
      headers: { 'www-authenticate': 'Bearer, Basic realm="plant-store-mock"' },
    },
    prism: {
      status: 401,
      body: { reason: 'who are you' },
      headers: { 'www-authenticate': null },
      why: 'RFC 9110 §15.5.2: a 401 sends a WWW-Authenticate challenge; Prism leaves it out when a 401 is declared',
    },
  },
  {
    name: 'alternatives without a declared 401: the mock’s own body, a challenge for each scheme',
    request: { path: '/either' },
    mock: {
      status: 401,
      body: { error: 401, message: 'This operation needs an "Authorization: Bearer <token>" header.' },
      headers: { 'www-authenticate': /^Bearer, Basic realm="plant-store-mock", ApiKey / },
    },
    prism: {
      status: 401,
      headers: { 'www-authenticate': 'OAuth2,Basic realm="*"' },
      why: 'Prism answers RFC 7807 and names no challenge for an API key; "OAuth2" is no HTTP scheme, a bearer token is',
    },
  },
  {
    name: '__code= for an undeclared status: 404 naming the declared ones',
    request: { path: '/plain?__code=304' },
    mock: {
      status: 404,
      body: { error: 404, message: '__code=304 names a status that plain does not declare (declared: 200).' },
    },
    prism: { status: 404, why: 'Prism’s body is its RFC 7807 problem' },
  },
  {
    name: 'Prefer: code= for an undeclared status on an operation that declares a 422: still 404, never the 422’s example',
    request: { ...post('/things', { prefer: 'code=500' }), body: '{"name":"x"}' },
    mock: {
      status: 404,
      body: {
        error: 404,
        message: 'Prefer: code=500 names a status that addThing does not declare (declared: 200, 422).',
      },
    },
    prism: { status: 404, why: 'Prism’s body is its RFC 7807 problem' },
  },
  {
    name: 'a literal path declared with characters a client encodes is found when sent encoded',
    request: { path: '/test%20path%20%3E%20with%20%7C%20unsafe' },
    mock: { status: 200 },
  },
  {
    name: 'a body sent to an operation that declares none: 415 naming the operation',
    request: { method: 'POST', path: '/nobody', headers: json, body: '{"a":1}' },
    mock: {
      status: 415,
      body: { error: 415, message: 'takesNoBody declares no request body; send the request without one.' },
    },
    prism: { status: 415, why: 'Prism’s body is its RFC 7807 problem' },
  },
  {
    name: 'a POST without a body to an operation that declares none is answered',
    request: { method: 'POST', path: '/nobody' },
    mock: { status: 200 },
  },
  {
    name: 'a missing last segment (GET /pets/ for /pets/{id}) is 404: no operation serves that path',
    request: { path: '/pets/' },
    mock: { status: 404 },
    prism: {
      status: 422,
      why: 'Prism matches /pets/{id} with an empty id and refuses it; an empty segment is no value of a required path parameter',
    },
  },
]

/** What a transport answered, read the same way whatever sent it. */
export interface Answered {
  status: number
  headers: Headers
  text: string
}

export function expectErrorAnswer(expected: ErrorAnswer, answered: Answered): void {
  expect(answered.status, answered.text).toBe(expected.status)
  if (expected.body !== undefined) expect(JSON.parse(answered.text)).toEqual(expected.body)
  for (const [name, value] of Object.entries(expected.headers ?? {})) {
    const actual = answered.headers.get(name)
    if (value === null) expect(actual, name).toBeNull()
    else if (typeof value === 'string') expect(actual, name).toBe(value)
    else expect(actual, name).toMatch(value)
  }
}
