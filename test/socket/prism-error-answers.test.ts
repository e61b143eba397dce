/**
 * Error answers from the description (#30 §1), the mock beside Stoplight Prism 5.14: both serve
 * test/descriptions/prism-error-answers.yaml on loopback. Where a case names Prism's answer, the mock
 * differs on purpose (the reason is in the case, and in docs/coming-from-prism.md); elsewhere both
 * answer the same status and body.
 */
import { describe, expect, it } from 'vitest'
import { prismBesideMock } from '../support/prism.js'
import {
  type Answered,
  type ErrorAnswerRequest,
  ERROR_ANSWERS_SPEC,
  errorAnswerCases,
  expectErrorAnswer,
} from '../support/error-answer-cases.js'

const servers = prismBesideMock(ERROR_ANSWERS_SPEC)

async function ask(base: string, request: ErrorAnswerRequest): Promise<Answered> {
  const response = await fetch(base + request.path, {
    method: request.method ?? 'GET',
    headers: request.headers,
    body: request.body,
    signal: AbortSignal.timeout(10_000),
  })
  return { status: response.status, headers: response.headers, text: await response.text() }
}

describe('error answers from the description beside Prism 5.14 (#30)', () => {
  it.each(errorAnswerCases.map((c) => [c.name, c] as const))('%s', async (_name, { request, mock, prism }) => {
    const [theirs, ours] = await Promise.all([ask(servers.prismUrl, request), ask(servers.mock.url, request)])
    expectErrorAnswer(mock, ours)
    if (prism) expectErrorAnswer(prism, theirs)
    else {
      expect(ours.status).toBe(theirs.status)
      const body = (text: string) => (text === '' ? text : JSON.parse(text))
      expect(body(ours.text)).toEqual(body(theirs.text))
    }
  })

  it('both send the request’s violations in sl-violations, with the same location', async () => {
    const request = { method: 'POST', path: '/things', headers: { 'content-type': 'application/json' }, body: '{}' }
    const [theirs, ours] = await Promise.all([ask(servers.prismUrl, request), ask(servers.mock.url, request)])
    const locations = (answered: Answered) =>
      (JSON.parse(answered.headers.get('sl-violations')!) as Array<{ location: string[] }>).map((v) => v.location)
    // Prism points at the object missing the property; the mock at the property itself.
    expect(locations(theirs)).toEqual([['request', 'body']])
    expect(locations(ours)).toEqual([['request', 'body', 'name']])
  })
})
