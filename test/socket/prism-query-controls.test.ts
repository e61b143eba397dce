/**
 * Prism's query controls (#13), the mock beside Stoplight Prism 5.14 itself: both serve
 * test/descriptions/query-controls-prism.yaml on loopback, and each request goes to both. Where Prism
 * defines the behaviour, they agree (status, and the body where it is an example); where the mock
 * answers otherwise on purpose, the difference is named below, with both answers, so that a change
 * on either side shows.
 */
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { prismBesideMock } from '../support/prism.js'

const spec = fileURLToPath(new URL('../descriptions/query-controls-prism.yaml', import.meta.url))
const servers = prismBesideMock(spec)

interface Answer {
  status: number
  body: unknown
}

async function ask(base: string, query: string, prefer?: string): Promise<Answer> {
  const response = await fetch(`${base}/items${query}`, {
    headers: prefer ? { prefer } : {},
    signal: AbortSignal.timeout(10_000),
  })
  const text = await response.text()
  return { status: response.status, body: response.ok ? JSON.parse(text) : undefined }
}

/** Requests Prism defines an answer for: [query, Prefer, whether the body is an example both must serve]. */
const AGREED: Array<[string, string | undefined, boolean]> = [
  ['', undefined, true],
  ['?__code=404', undefined, false],
  ['?__example=ivy', undefined, true],
  ['?__dynamic=false', undefined, true],
  ['?__dynamic=true', undefined, false],
  ['?__code=404&limit=5', undefined, false],
  ['?__code=abc', undefined, false],
  ['?__dynamic=maybe', undefined, false],
  ['?limit=abc&__code=404', undefined, false],
  ['?__code=404', 'code=200', true],
  ['?__code=404', 'example=ivy', true],
  // Both 404 (#30); Prism's body is its problem+json, the mock's its own error naming the declared statuses or examples.
  ['?__code=500', undefined, false],
  ['?__example=nope', undefined, false],
]

describe('query controls beside Prism 5.14 (#13)', () => {
  it.each(AGREED)('%s with Prefer %s answers as Prism does', async (query, prefer, sameBody) => {
    const [theirs, ours] = await Promise.all([
      ask(servers.prismUrl, query, prefer),
      ask(servers.mock.url, query, prefer),
    ])
    expect(ours.status).toBe(theirs.status)
    if (sameBody) expect(ours.body).toEqual(theirs.body)
    if (query === '?__dynamic=true') expect(typeof (ours.body as { name: unknown }).name).toBe('string')
  })

  /**
   * Where the mock answers otherwise on purpose (docs/request-controls.md): [query, Prefer, Prism's status, the mock's, why].
   */
  const INTENDED_DIFFERENCES: Array<[string, string | undefined, number, number, string]> = [
    [
      '?__code=404&__example=ivy',
      undefined,
      200,
      404,
      'code and example together look for the example in that status only, as Prefer does',
    ],
    [
      '?__code=404&__code=200',
      undefined,
      422,
      404,
      'of a repeated control the first counts, as of a repeated preference (RFC 7240)',
    ],
    [
      '?%5F%5Fcode=404',
      undefined,
      404,
      200,
      'a control is recognised by its name as written: the mock looks for "__" in the raw query only',
    ],
    [
      '?__code=404',
      'delay=0',
      200,
      404,
      'a Prefer that names none of code, example, dynamic (say a delay) leaves the query controls in force',
    ],
  ]

  it.each(INTENDED_DIFFERENCES)(
    '%s with Prefer %s: Prism %i, the mock %i, since %s',
    async (query, prefer, prismStatus, mockStatus) => {
      const [theirs, ours] = await Promise.all([
        ask(servers.prismUrl, query, prefer),
        ask(servers.mock.url, query, prefer),
      ])
      expect(theirs.status).toBe(prismStatus)
      expect(ours.status).toBe(mockStatus)
    },
  )
})
