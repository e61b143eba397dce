/** The answers the journal keeps (`src/journal/journal.ts`, #13 §4): redacted and bounded when listed, counted in its byte budget. */
import { describe, expect, it } from 'vitest'
import { type AnswerSource, type RequestRecord, createJournal } from '../../src/journal/journal.js'
import { journaledPost } from '../support/builders.js'

const KIB = 1024

/** A journaled POST /plants answered with `response`. */
function record(response: AnswerSource | undefined, overrides: Partial<RequestRecord> = {}): RequestRecord {
  return journaledPost({ status: response?.status ?? 0, response, ...overrides })
}

describe('createJournal: the answers it keeps', () => {
  it('lists the status, the headers with lower-case names and Content-Type, and the body', () => {
    const journal = createJournal(10)
    journal.recordRequest(
      record({
        status: 201,
        headers: { Location: '/plants/1' },
        contentType: 'application/json',
        body: '{"name":"Fern"}',
      }),
    )
    expect(journal.listRequests()[0]!.response).toEqual({
      status: 201,
      headers: { location: '/plants/1', 'content-type': 'application/json' },
      body: '{"name":"Fern"}',
    })
  })

  it('redacts Set-Cookie and credentials in an answer as in a request, and keeps WWW-Authenticate', () => {
    const journal = createJournal(10, { headers: new Set(['x-api-key']), query: new Set() })
    const headers = new Headers({
      'set-cookie': 'session=abc',
      authorization: 'Bearer t',
      'x-api-key': 'k',
      'www-authenticate': 'Bearer error="invalid_token"',
    })
    journal.recordRequest(record({ status: 401, headers, body: null }))
    expect(journal.listRequests()[0]!.response!.headers).toEqual({
      'set-cookie': '[redacted]',
      authorization: '[redacted]',
      'x-api-key': '[redacted]',
      'www-authenticate': 'Bearer error="invalid_token"',
    })
  })

  it('an answer without a body lists none; an empty body lists an empty one', () => {
    const journal = createJournal(10)
    journal.recordRequest(record({ status: 204, body: null }))
    journal.recordRequest(record({ status: 200, contentType: 'text/plain', body: '' }))
    const [none, empty] = journal.listRequests()
    expect(none!.response).toEqual({ status: 204, headers: {} })
    expect(empty!.response).toEqual({ status: 200, headers: { 'content-type': 'text/plain' }, body: '' })
  })

  it('keeps an answer as it was when recorded, and a streamed answer’s progress as it goes', () => {
    const journal = createJournal(10)
    const answer: AnswerSource = { status: 200, contentType: 'application/json', body: '{"name":"Fern"}' }
    const streamed: AnswerSource = {
      status: 200,
      contentType: 'text/event-stream',
      body: null,
      stream: { items: 0, bytes: 0, ended: 'streaming' },
    }
    journal.recordRequest(record(answer))
    journal.recordRequest(record(streamed))
    // The status and a short body are packed with the record (record-columns.ts): a later change does not show.
    answer.status = 299
    answer.body = '{}'
    // A stream's record is updated as its items go: the journal reads it where it is.
    streamed.stream!.items = 3
    streamed.stream!.ended = 'complete'
    const [first, second] = journal.listRequests()
    expect(first!.response).toMatchObject({ status: 200, body: '{"name":"Fern"}' })
    expect(second!.response!.stream).toEqual({ items: 3, bytes: 0, ended: 'complete' })
  })

  it('keeps only the first 64 KiB of a longer body, as bytes, and says it was cut', () => {
    const journal = createJournal(10)
    const body = `"${'é'.repeat(100 * KIB)}"`
    journal.recordRequest(record({ status: 200, contentType: 'application/json', body }))
    const { response } = journal.listRequests()[0]!
    expect(response!.bodyTruncated).toBe(true)
    expect(body.startsWith(response!.body!)).toBe(true)
    expect(new TextEncoder().encode(response!.body!).byteLength).toBeGreaterThan(64 * KIB - 4)
  })

  it('lists the reason as recorded, and none when there is none', () => {
    const journal = createJournal(10)
    journal.recordRequest(
      record({ status: 404, body: null }, { reason: 'No operation in the description matches GET /x.' }),
    )
    journal.recordRequest(record({ status: 200, body: '{}' }))
    expect(journal.listRequests().map((e) => e.reason)).toEqual([
      'No operation in the description matches GET /x.',
      undefined,
    ])
  })

  it('no response is listed when the record has none (a fault sent none)', () => {
    const journal = createJournal(10)
    journal.recordRequest(
      record(undefined, { fault: 'reset', reason: 'fault reset: the connection was reset, no response was sent' }),
    )
    expect(journal.listRequests()[0]).not.toHaveProperty('response')
  })

  it('the byte budget counts the answer bodies kept, at most 64 KiB each', () => {
    const journal = createJournal(1000, undefined, 256 * KIB)
    // Requests of some 1 KiB each; answers of 50 KiB: five answers do not fit in 256 KiB, ten requests alone would.
    for (let n = 1; n <= 10; n++)
      journal.recordRequest(record({ status: 200, body: 'x'.repeat(50 * KIB) }, { query: `n=${n}` }))
    expect(journal.listRequests().map((e) => e.query)).toEqual(['n=7', 'n=8', 'n=9', 'n=10'])
    // A 1 MiB answer counts as the 64 KiB kept of it.
    const wide = createJournal(1000, undefined, 256 * KIB)
    for (let n = 1; n <= 4; n++)
      wide.recordRequest(record({ status: 200, body: 'x'.repeat(1024 * KIB) }, { query: `n=${n}` }))
    expect(wide.listRequests()).toHaveLength(3)
  })
})
