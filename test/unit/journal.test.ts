/** The request journal (`src/journal/journal.ts`, issue #3 §3): a bounded ring, redaction, filters. */
import { describe, expect, it } from 'vitest'
import { resolveOptions } from '../../src/engine/resolve-options.js'
import { nodePlatform } from '../../src/node/node-platform.js'
import { createJournal } from '../../src/journal/journal.js'
import { journaledPost } from '../support/builders.js'

const KIB = 1024
const encode = (text: string) => new TextEncoder().encode(text)

/** A journaled POST /plants, with what the test changes. */
const record = journaledPost

function recordMany(journal: ReturnType<typeof createJournal>, count: number): void {
  for (let n = 1; n <= count; n++) journal.recordRequest(record({ query: `n=${n}` }))
}

describe('createJournal: a bounded ring', () => {
  it('keeps every entry, oldest first, until the capacity is reached', () => {
    const journal = createJournal(5)
    recordMany(journal, 5)
    expect(journal.listRequests().map((e) => e.query)).toEqual(['n=1', 'n=2', 'n=3', 'n=4', 'n=5'])
  })

  it('drops the oldest entries beyond a small capacity', () => {
    const journal = createJournal(3)
    recordMany(journal, 10)
    expect(journal.listRequests().map((e) => e.query)).toEqual(['n=8', 'n=9', 'n=10'])
  })

  it('never lists more than the capacity, after any number of records', () => {
    const journal = createJournal(4)
    for (let n = 1; n <= 25; n++) {
      journal.recordRequest(record({ query: `n=${n}` }))
      const listed = journal.listRequests()
      expect(listed).toHaveLength(Math.min(n, 4))
      expect(listed.at(-1)!.query).toBe(`n=${n}`)
    }
  })

  it('the default capacity is 1000 and keeps the newest 1000', () => {
    const capacity = resolveOptions({}, nodePlatform).journalSize
    expect(capacity).toBe(1000)
    const journal = createJournal(capacity)
    recordMany(journal, 1500)
    const listed = journal.listRequests()
    expect(listed).toHaveLength(1000)
    expect(listed[0]!.query).toBe('n=501')
    expect(listed.at(-1)!.query).toBe('n=1500')
  })

  it('ids increase by one per record, across drops and clears', () => {
    const journal = createJournal(2)
    recordMany(journal, 5)
    expect(journal.listRequests().map((e) => e.id)).toEqual([4, 5])
    journal.clearRequests()
    recordMany(journal, 1)
    expect(journal.listRequests().map((e) => e.id)).toEqual([6])
  })

  it('capacity 0 records nothing', () => {
    const journal = createJournal(0)
    recordMany(journal, 3)
    expect(journal.listRequests()).toEqual([])
  })

  it('counts the requests it let go of, so a verification can say it saw only the rest (#29)', () => {
    const journal = createJournal(3)
    recordMany(journal, 3)
    expect(journal.dropped).toBe(0)
    // Past the capacity, whether or not the ring has compacted yet: every request not listed is dropped.
    for (let n = 4; n <= 10; n++) {
      journal.recordRequest(record({ query: `n=${n}` }))
      expect(journal.dropped).toBe(n - 3)
      expect(journal.dropped + journal.listRequests().length).toBe(n)
    }
  })

  it('counts requests dropped by the byte budget, and forgets the count when emptied, not when a session is (#29)', () => {
    const journal = createJournal(100, undefined, 4 * KIB)
    for (let n = 1; n <= 6; n++) journal.recordRequest(record({ body: encode('x'.repeat(KIB)), session: `s${n % 2}` }))
    const kept = journal.listRequests().length
    expect(kept).toBeLessThan(6)
    expect(journal.dropped).toBe(6 - kept)
    journal.clearRequests({ session: 's0' })
    expect(journal.dropped).toBe(6 - kept)
    journal.clearRequests()
    expect(journal.dropped).toBe(0)
  })

  it('a journal of size 0 counts every request as dropped (#29)', () => {
    const journal = createJournal(0)
    recordMany(journal, 3)
    expect(journal.dropped).toBe(3)
  })
})

describe('createJournal: what an entry keeps', () => {
  it('redacts authorization, proxy-authorization and cookie, and keeps other headers', () => {
    const journal = createJournal(10)
    const headers = new Headers({
      Authorization: 'Bearer secret',
      'Proxy-Authorization': 'Basic c2VjcmV0',
      Cookie: 'sid=secret',
      'X-Trace': 'abc',
    })
    journal.recordRequest(record({ headers }))
    const [entry] = journal.listRequests()
    expect(entry!.headers).toEqual({
      authorization: '[redacted]',
      'proxy-authorization': '[redacted]',
      cookie: '[redacted]',
      'x-trace': 'abc',
    })
    expect(JSON.stringify(entry)).not.toContain('secret')
  })

  it('lists the arrival time as ISO 8601', () => {
    const journal = createJournal(10)
    journal.recordRequest(record())
    expect(journal.listRequests()[0]!.time).toBe('2025-01-01T00:00:00.000Z')
  })

  it('keeps the body as text', () => {
    const journal = createJournal(10)
    journal.recordRequest(record({ body: encode('{"id":1,"name":"Fern"}') }))
    const [entry] = journal.listRequests()
    expect(entry!.body).toBe('{"id":1,"name":"Fern"}')
    expect(entry).not.toHaveProperty('bodyTruncated')
  })

  it('keeps a body of exactly 64 KiB whole, without bodyTruncated', () => {
    const journal = createJournal(10)
    journal.recordRequest(record({ body: encode('x'.repeat(64 * KIB)) }))
    const [entry] = journal.listRequests()
    expect(entry!.body).toHaveLength(64 * KIB)
    expect(entry).not.toHaveProperty('bodyTruncated')
  })

  it('truncates a body over 64 KiB to its first 64 KiB and sets bodyTruncated', () => {
    const journal = createJournal(10)
    const text = 'a'.repeat(64 * KIB) + 'b'.repeat(10)
    journal.recordRequest(record({ body: encode(text) }))
    const [entry] = journal.listRequests()
    expect(entry!.body).toBe('a'.repeat(64 * KIB))
    expect(entry!.bodyTruncated).toBe(true)
  })

  it('has no body field when no body was read', () => {
    const journal = createJournal(10)
    journal.recordRequest(record())
    expect(journal.listRequests()[0]).not.toHaveProperty('body')
  })

  it('keeps a body given as the text it was decoded to, listed as bytes would be', () => {
    const journal = createJournal(10)
    journal.recordRequest(record({ body: '{"id":1,"name":"Fern"}' }))
    journal.recordRequest(record({ body: 'x'.repeat(64 * KIB) }))
    // 30,000 three-byte characters: 90,000 bytes of UTF-8, listed as the whole characters of the first 64 KiB.
    journal.recordRequest(record({ body: '€'.repeat(30_000) }))
    journal.recordRequest(record({ body: 'a'.repeat(64 * KIB) + 'b'.repeat(10) }))
    const [json, full, wide, long] = journal.listRequests()
    expect(json!.body).toBe('{"id":1,"name":"Fern"}')
    expect(json).not.toHaveProperty('bodyTruncated')
    expect(full!.body).toHaveLength(64 * KIB)
    expect(full).not.toHaveProperty('bodyTruncated')
    expect(wide!.body).toBe('€'.repeat(Math.floor((64 * KIB) / 3)))
    expect(wide!.bodyTruncated).toBe(true)
    expect(long!.body).toBe('a'.repeat(64 * KIB))
    expect(long!.bodyTruncated).toBe(true)
  })

  it('copies the body, so a reused buffer does not change the entry', () => {
    const journal = createJournal(10)
    const buffer = encode('{"name":"Fern"}')
    journal.recordRequest(record({ body: buffer }))
    buffer.fill(0x20)
    expect(journal.listRequests()[0]!.body).toBe('{"name":"Fern"}')
  })

  it('lists responseViolations only for an answer that broke its declaration, as copies (#13)', () => {
    const journal = createJournal(10)
    const responseViolations = [{ path: 'body.id', message: 'is required' }]
    journal.recordRequest(record({ responseViolations }))
    journal.recordRequest(record())
    const [broken, fine] = journal.listRequests()
    expect(broken!.responseViolations).toEqual(responseViolations)
    broken!.responseViolations![0]!.message = 'changed'
    expect(journal.listRequests()[0]!.responseViolations).toEqual(responseViolations)
    expect(fine).not.toHaveProperty('responseViolations')
  })

  it('counts responseViolations in the byte budget (#13)', () => {
    const heavy = [{ path: 'body', message: 'x'.repeat(400) }]
    const journal = createJournal(1000, undefined, 20 * KIB)
    for (let n = 1; n <= 100; n++) journal.recordRequest(record({ query: `n=${n}`, responseViolations: heavy }))
    expect(journal.listRequests().length).toBeLessThan(15)
  })

  it('keeps the status, scenario, session, outcome and violations as recorded', () => {
    const journal = createJournal(10)
    const violations = [{ path: 'body.name', message: 'is required' }]
    journal.recordRequest(record({ status: 400, scenario: 'error', session: 'w1', valid: false, violations }))
    expect(journal.listRequests()[0]).toMatchObject({
      status: 400,
      scenario: 'error',
      session: 'w1',
      valid: false,
      violations,
    })
  })
})

describe('createJournal: filters', () => {
  function mixed() {
    const journal = createJournal(10)
    journal.recordRequest(record({ session: 'a' }))
    journal.recordRequest(record({ status: 401, session: 'b' }))
    journal.recordRequest(record({ path: '/trees', operation: undefined, status: 404 }))
    journal.recordRequest(record({ method: 'GET', operation: undefined, status: 405 }))
    return journal
  }
  const statuses = (
    journal: ReturnType<typeof createJournal>,
    filter: Parameters<ReturnType<typeof createJournal>['listRequests']>[0],
  ) => journal.listRequests(filter).map((e) => e.status)

  it('an empty filter lists every entry', () => {
    expect(statuses(mixed(), {})).toEqual([200, 401, 404, 405])
  })

  it('method matches case-insensitively', () => {
    const journal = mixed()
    expect(statuses(journal, { method: 'get' })).toEqual([405])
    expect(statuses(journal, { method: 'Post' })).toEqual([200, 401, 404])
  })

  it('path matches the exact path only', () => {
    const journal = mixed()
    expect(statuses(journal, { path: '/trees' })).toEqual([404])
    expect(statuses(journal, { path: '/tree' })).toEqual([])
  })

  it('operation matches the operationId', () => {
    expect(statuses(mixed(), { operation: 'addPlant' })).toEqual([200, 401])
  })

  it('status matches the status returned', () => {
    expect(statuses(mixed(), { status: 404 })).toEqual([404])
  })

  it('session matches the X-Mock-Session of the request', () => {
    expect(statuses(mixed(), { session: 'b' })).toEqual([401])
  })

  it('every filter given must match', () => {
    const journal = mixed()
    expect(statuses(journal, { method: 'post', operation: 'addPlant', status: 401 })).toEqual([401])
    expect(statuses(journal, { session: 'a', status: 401 })).toEqual([])
  })

  it('a status class matches every status of that hundred, case-insensitively (#13)', () => {
    const journal = mixed()
    expect(statuses(journal, { status: '4xx' })).toEqual([401, 404, 405])
    expect(statuses(journal, { status: '2XX' })).toEqual([200])
    expect(statuses(journal, { status: '5xx' })).toEqual([])
  })

  it('valid matches requests without (true) or with (false) a violation (#13)', () => {
    const journal = createJournal(10)
    journal.recordRequest(record())
    journal.recordRequest(record({ status: 400, valid: false }))
    expect(statuses(journal, { valid: false })).toEqual([400])
    expect(statuses(journal, { valid: true })).toEqual([200])
  })

  it('since matches requests that arrived at or after it, as a Date or epoch milliseconds (#13)', () => {
    const journal = createJournal(10)
    for (const second of [0, 1, 2])
      journal.recordRequest(record({ time: Date.UTC(2025, 0, 1, 0, 0, second), status: 200 + second }))
    expect(statuses(journal, { since: Date.UTC(2025, 0, 1, 0, 0, 1) })).toEqual([201, 202])
    expect(statuses(journal, { since: new Date(Date.UTC(2025, 0, 1, 0, 0, 2)) })).toEqual([202])
    expect(statuses(journal, { since: new Date(Date.UTC(2025, 0, 1, 0, 0, 3)) })).toEqual([])
  })
})

describe('createJournal: countRequests (#13)', () => {
  it('counts the entries every filter matches, as the listing would list them', () => {
    const journal = createJournal(10)
    journal.recordRequest(record({ session: 'a' }))
    journal.recordRequest(record({ status: 400, valid: false, session: 'a' }))
    journal.recordRequest(record({ status: 400, valid: false }))
    expect(journal.countRequests()).toBe(3)
    expect(journal.countRequests({ operation: 'addPlant', status: 400 })).toBe(2)
    expect(journal.countRequests({ valid: false, status: '4xx', session: 'a' })).toBe(1)
    for (const filter of [{}, { status: 400 }, { session: 'a' }])
      expect(journal.countRequests(filter)).toBe(journal.listRequests(filter).length)
  })

  it('counts only the entries the ring still holds', () => {
    const journal = createJournal(3)
    recordMany(journal, 10)
    expect(journal.countRequests()).toBe(3)
  })

  it('builds no entry: the headers are never read', () => {
    const journal = createJournal(10)
    const headers = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error('headers read')
        },
      },
    )
    journal.recordRequest(record({ headers }))
    expect(journal.countRequests({ status: '2xx' })).toBe(1)
    expect(() => journal.listRequests()).toThrow('headers read')
  })
})

describe('createJournal: clearRequests', () => {
  it('without a session empties the journal', () => {
    const journal = createJournal(10)
    journal.recordRequest(record({ session: 'a' }))
    journal.recordRequest(record())
    journal.clearRequests()
    expect(journal.listRequests()).toEqual([])
  })

  it('with a session removes only that session’s entries', () => {
    const journal = createJournal(10)
    journal.recordRequest(record({ session: 'a' }))
    journal.recordRequest(record({ session: 'b' }))
    journal.recordRequest(record())
    journal.clearRequests({ session: 'a' })
    expect(journal.listRequests().map((e) => e.session ?? null)).toEqual(['b', null])
  })

  it('clearing one session does not bring back entries the ring had dropped', () => {
    const journal = createJournal(2)
    journal.recordRequest(record({ session: 'b', query: 'n=1' }))
    journal.recordRequest(record({ session: 'b', query: 'n=2' }))
    journal.recordRequest(record({ session: 'a', query: 'n=3' }))
    journal.clearRequests({ session: 'a' })
    expect(journal.listRequests().map((e) => e.query)).toEqual(['n=2'])
  })
})

describe('createJournal: credentials the description declares (#12)', () => {
  const redaction = { headers: new Set(['x-library-key']), query: new Set(['k']) }

  it('redacts the API key headers and query parameters of the security schemes, and secret-named query parameters', () => {
    const journal = createJournal(10, redaction)
    journal.recordRequest(
      record({
        headers: { 'x-library-key': 'k-123', accept: '*/*' },
        query: 'k=abc&access_token=t0&api_key=s3&password=p&name=fern',
      }),
    )
    const [entry] = journal.listRequests()
    expect(entry!.headers).toEqual({ 'x-library-key': '[redacted]', accept: '*/*' })
    expect(entry!.query).toBe('k=[redacted]&access_token=[redacted]&api_key=[redacted]&password=[redacted]&name=fern')
  })

  it('reads encoded names as the client meant them', () => {
    const journal = createJournal(10, redaction)
    journal.recordRequest(record({ query: 'client%5Fsecret=x&%6B=y&bad=%E0' }))
    expect(journal.listRequests()[0]!.query).toBe('client%5Fsecret=[redacted]&%6B=[redacted]&bad=%E0')
  })
})

describe('createJournal: bounded by bytes, listed by pages (#12)', () => {
  it('drops the oldest entries once their bytes pass the budget, whatever the count allows', () => {
    const journal = createJournal(1000, undefined, 1024 * KIB)
    for (let n = 1; n <= 100; n++) journal.recordRequest(record({ query: `n=${n}`, body: new Uint8Array(64 * KIB) }))
    const kept = journal.listRequests()
    expect(kept.length).toBeGreaterThan(10)
    expect(kept.length).toBeLessThan(17)
    expect(kept.at(-1)!.query).toBe('n=100')
  })

  it('keeps the newest entry even when it alone passes the budget', () => {
    const journal = createJournal(10, undefined, 1024)
    journal.recordRequest(record({ body: new Uint8Array(10 * KIB) }))
    expect(journal.listRequests()).toHaveLength(1)
  })

  it('pages oldest first, each page naming the cursor of the next, the last none', () => {
    const journal = createJournal(100)
    recordMany(journal, 25)
    const first = journal.pageRequests({}, { limit: 10 })
    expect(first.entries.map((e) => e.query)).toEqual(Array.from({ length: 10 }, (_, i) => `n=${i + 1}`))
    const second = journal.pageRequests({}, { limit: 10, after: first.next })
    expect(second.entries[0]!.query).toBe('n=11')
    const last = journal.pageRequests({}, { limit: 10, after: second.next })
    expect(last.entries.map((e) => e.query)).toEqual(['n=21', 'n=22', 'n=23', 'n=24', 'n=25'])
    expect(last.next).toBeUndefined()
  })

  it('pages only the entries a filter matches', () => {
    const journal = createJournal(100)
    for (let n = 1; n <= 6; n++) journal.recordRequest(record({ query: `n=${n}`, status: n % 2 ? 200 : 400 }))
    expect(journal.pageRequests({ status: 400 }, { limit: 2 }).entries.map((e) => e.query)).toEqual(['n=2', 'n=4'])
  })
})
