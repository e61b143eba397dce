/**
 * Response headers (#13), the mock beside Stoplight Prism 5.14 itself: both serve
 * test/descriptions/response-headers.yaml on loopback, and each request goes to both. Where the
 * description gives the value (an example, a default, an enum) or both sample the same, they send
 * the same header; where the mock answers otherwise on purpose, the difference is named below, with
 * both answers, so that a change on either side shows.
 *
 * Not asked of Prism: GET /plant-styles (array and object headers). Prism checks its own answer and
 * splits an array header's value as text: with an example (`[3, 4, 5]`) or without (`null`), the
 * split throws and the Prism process exits (`TypeError: value.split is not a function` in
 * validator/deserializers/style/simple.js). The mock's answer is in test/in-process/response-headers.test.ts.
 */
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { prismBesideMock } from '../support/prism.js'

const spec = fileURLToPath(new URL('../descriptions/response-headers.yaml', import.meta.url))
const servers = prismBesideMock(spec)

interface Answer {
  status: number
  headers: Headers
}

async function ask(base: string, method: string, path: string): Promise<Answer> {
  const response = await fetch(`${base}${path}`, { method, redirect: 'manual', signal: AbortSignal.timeout(10_000) })
  await response.arrayBuffer()
  return { status: response.status, headers: response.headers }
}

const both = (method: string, path: string) =>
  Promise.all([ask(servers.prismUrl, method, path), ask(servers.mock.url, method, path)])

/** Headers both send with the same value: [method, path, header, value]. */
const AGREED: Array<[string, string, string, string]> = [
  ['GET', '/plants', 'x-rate-limit', '100'],
  ['GET', '/plants', 'x-request-id', '8a7c2f4e-0b1d-4c3e-9f00-1a2b3c4d5e6f'],
  ['GET', '/plants', 'x-total-count', '1'],
  ['GET', '/plants', 'last-modified-at', '2019-08-24T14:15:22Z'],
  ['GET', '/plants', 'x-plan', 'free'],
  ['GET', '/plants', 'x-region', 'eu-west'],
  ['GET', '/plants', 'content-type', 'application/json'],
  ['POST', '/plants', 'etag', '"v1"'],
  ['GET', '/plants/1', 'etag', '"v1"'],
  ['GET', '/plants/1', 'x-cache-hits', '99'],
  ['DELETE', '/plants/1', 'set-cookie', 'session=; Path=/; Max-Age=0'],
  ['DELETE', '/plants/1', 'x-deleted-at', '2019-08-24T14:15:22Z'],
]

/** Where the mock answers otherwise on purpose: [method, path, header, Prism's value, the mock's, why]; `null` is no header. */
const INTENDED_DIFFERENCES: Array<[string, string, string, string | null, string | null, string]> = [
  [
    'GET',
    '/plants',
    'x-checksum',
    'string',
    '08ff49b6',
    'the mock’s sample follows the schema’s pattern, where Prism’s breaks it (and says so in sl-violations)',
  ],
  [
    'GET',
    '/plants',
    'x-meta',
    'null',
    '{"cached":true}',
    'a header declared with `content` is the JSON text of its example; Prism reads no value for it',
  ],
  [
    'POST',
    '/plants',
    'location',
    'string',
    '/',
    'a Location without an example is a path (or a URL for format uri) the client can follow, as before',
  ],
  [
    'GET',
    '/old-plants',
    'location',
    'http://example.com',
    'http://127.0.0.1/',
    'a Location of format uri without an example points back at a loopback URL, as before',
  ],
  [
    'GET',
    '/plants/1',
    'set-cookie',
    'string',
    null,
    'the mock makes up no cookie: one would land in the browser’s jar for every port of the host',
  ],
  [
    'GET',
    '/plants/1',
    'x-sample-breaks',
    'st',
    null,
    'an optional header no made-up value fits is left out rather than sent broken with every answer',
  ],
]

describe('response headers beside Prism 5.14 (#13)', () => {
  it.each(AGREED)('%s %s: %s is %s on both', async (method, path, header, value) => {
    const [theirs, ours] = await both(method, path)
    expect(ours.status).toBe(theirs.status)
    expect(theirs.headers.get(header)).toBe(value)
    expect(ours.headers.get(header)).toBe(value)
  })

  it.each(INTENDED_DIFFERENCES)(
    '%s %s: %s is %j from Prism, %j from the mock, since %s',
    async (method, path, header, prismValue, mockValue) => {
      const [theirs, ours] = await both(method, path)
      expect(ours.status).toBe(theirs.status)
      expect(theirs.headers.get(header)).toBe(prismValue)
      expect(ours.headers.get(header)).toBe(mockValue)
    },
  )

  it('ignores a declared Content-Type and Content-Length, as Prism does: the answer’s own are sent', async () => {
    const [theirs, ours] = await both('GET', '/plants')
    for (const answer of [theirs, ours]) {
      expect(answer.headers.get('content-type')).toBe('application/json')
      expect(answer.headers.get('content-length')).not.toBe('7')
    }
  })

  it('reports an example that breaks its schema with each answer, as Prism does in its own header', async () => {
    const [theirs, ours] = await both('GET', '/plants/1')
    expect(theirs.headers.get('sl-violations')).toContain('x-cache-hits must be <= 10')
    expect(JSON.parse(ours.headers.get('x-mock-violations')!)).toEqual([
      { location: 'response.header', pointer: '/x-cache-hits', message: 'must be <= 10' },
    ])
  })

  it('GET /greeting: Prism answers 500, since Node refuses the example’s characters; the mock 200, the value percent-encoded', async () => {
    const [theirs, ours] = await both('GET', '/greeting')
    expect(theirs.status).toBe(500)
    expect(ours.status).toBe(200)
    expect(ours.headers.get('x-greeting')).toBe('Gr%C3%BC%C3%9Fe aus K%C3%B6ln')
  })
})
