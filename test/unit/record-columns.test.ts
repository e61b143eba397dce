/**
 * The journal's records in columns (`src/journal/record-columns.ts`, #34 §6): whatever is kept comes
 * back as it went, packed or not, across chunks, drops and growth.
 */
import { describe, expect, it } from 'vitest'
import type { Stored } from '../../src/journal/journal.js'
import { PACKED_TEXT_LIMIT, RecordColumns } from '../../src/journal/record-columns.js'
import { journaledPost } from '../support/builders.js'

function stored(overrides: Partial<Stored> = {}, id = 1): Stored {
  return { ...journaledPost(), id, replica: undefined, ...overrides } as Stored
}

/** What `recordAt` gives back, compared with what was kept: every field the journal lists from. */
function roundTrip(record: Stored): Stored {
  const columns = new RecordColumns()
  columns.push(record, 100)
  return columns.recordAt(0, undefined)
}

describe('RecordColumns: a record comes back as it went', () => {
  it('numbers, shared strings, flags and the texts it packs', () => {
    const fields: Partial<Stored> = {
      id: 7,
      time: Date.UTC(2026, 10, 29, 13, 5, 7, 123),
      durationMs: 0.125,
      method: 'PATCH',
      path: '/plants/7',
      query: 'a=1&b=%20',
      body: '{"name":"Fern"}',
      status: 201,
      valid: false,
      violations: [{ path: 'body.id', message: 'must be an integer' }],
      response: { status: 201, contentType: 'application/json', headers: { location: '/plants/7' }, body: '{"id":7}' },
    }
    expect(roundTrip(stored(fields))).toMatchObject(fields)
  })

  it('any string, NULs, a leading U+FEFF and empty ones included; a lone surrogate as U+FFFD, as on the wire', () => {
    const odd = 'a\u0000b\uffff é 🌿'
    const back = roundTrip(
      stored({ path: `/x/${odd}`, query: '', body: `\ufeff${odd}`, response: { status: 200, body: '' } }),
    )
    expect(back.path).toBe(`/x/${odd}`)
    expect(back.query).toBe('')
    expect(back.body).toBe(`\ufeff${odd}`)
    expect(back.response!.body).toBe('')
    // First in its chunk's text too, where a decoder would take it for a byte order mark.
    expect(roundTrip(stored({ path: '', body: '\ufeff{}' })).body).toBe('\ufeff{}')
    // One code unit for one: the texts packed after it stay where they were.
    const lone = roundTrip(stored({ body: 'a\ud800b', response: { status: 200, body: 'c\udc00d' } }))
    expect(lone.body).toBe('a\ufffdb')
    expect(lone.response!.body).toBe('c\ufffdd')
  })

  it('the rarer fields, each only where set', () => {
    const nearMiss = { rule: { label: 'stub 1' }, condition: -1, actual: 2 } as unknown as Stored['nearMiss']
    const rare = {
      session: 's1',
      fault: 'reset',
      reason: 'forced by Prefer: code=400',
      data: 'created plants/1',
      proxied: 'http://127.0.0.1:1/plants',
      proxy: 'forwarded to the upstream',
      answeredBy: 'stub 1',
      nearMiss,
      responseViolations: [{ path: 'status', message: 'is 418' }],
    }
    expect(roundTrip(stored(rare))).toMatchObject(rare)
    const plain = roundTrip(stored())
    for (const key of Object.keys(rare)) expect(plain[key as keyof Stored], key).toBeUndefined()
  })

  it('bodies past the packing limit, bytes and a stream by reference', () => {
    const long = 'x'.repeat(PACKED_TEXT_LIMIT + 1)
    const bytes = new Uint8Array([0, 1, 2, 255])
    const stream = { items: 1, bytes: 5, ended: 'streaming' as const }
    const back = roundTrip(stored({ body: long, response: { status: 200, body: bytes, stream } }))
    expect(back.body).toBe(long)
    expect(back.response!.body).toBe(bytes)
    expect(back.response!.stream).toBe(stream)
    expect(roundTrip(stored({ body: bytes })).body).toBe(bytes)
    expect(roundTrip(stored({ response: undefined })).response).toBeUndefined()
    expect(roundTrip(stored({ response: { status: 204, body: null } })).response).toMatchObject({ body: null })
  })

  it("the parser's raw headers, as Node's server joins them: lower-case, `, ` (a Cookie `; `), Set-Cookie a list", () => {
    const rawHeaders = [
      'Host',
      '127.0.0.1',
      'Accept',
      'a/b',
      'accept',
      'c/d',
      'Cookie',
      'a=1',
      'Cookie',
      'b=2',
      'Set-Cookie',
      'x=1',
      'set-cookie',
      'y=2',
      'X-Empty',
      '',
    ]
    const back = roundTrip(stored({ headers: { ignored: 'when the raw list is there' }, rawHeaders }))
    expect(back.headers).toEqual({
      host: '127.0.0.1',
      accept: 'a/b, c/d',
      cookie: 'a=1; b=2',
      'set-cookie': ['x=1', 'y=2'],
      'x-empty': '',
    })
    expect(roundTrip(stored({ rawHeaders: [] })).headers).toEqual({})
    // Without the raw list (a fetch Headers, under app.request()), the header source is kept as it is.
    const fetched = new Headers({ authorization: 'Bearer t' })
    expect(roundTrip(stored({ headers: fetched })).headers).toBe(fetched)
  })
})

describe('RecordColumns: many records', () => {
  it('keeps them in order across growth and chunks, drops the oldest, and keeps those asked for', () => {
    const columns = new RecordColumns(2)
    // Some 300 KiB of packed text a hundred records: several chunks of 256 KiB.
    const body = (n: number) => `{"n":${n},"pad":"${'p'.repeat(1500)}"}`
    for (let n = 1; n <= 100; n++)
      columns.push(stored({ body: body(n), session: n % 2 ? 'odd' : undefined, query: `n=${n}` }, n), n)
    expect(columns.length).toBe(100)
    expect(columns.recordAt(99, 'r1')).toMatchObject({ id: 100, body: body(100), query: 'n=100', replica: 'r1' })
    expect(columns.sizeAt(41)).toBe(42)
    columns.dropFirst(40)
    expect(columns.length).toBe(60)
    expect(columns.idAt(0)).toBe(41)
    expect(columns.recordAt(0, undefined).body).toBe(body(41))
    columns.keepOnly((i) => columns.sessionAt(i) !== 'odd')
    expect(columns.length).toBe(30)
    expect(Array.from({ length: 30 }, (_, i) => columns.idAt(i))).toEqual(
      Array.from({ length: 30 }, (_, i) => 42 + 2 * i),
    )
    expect(columns.recordAt(29, undefined)).toMatchObject({ id: 100, query: 'n=100', body: body(100) })
    // Their texts were copied into new chunks, and records kept after them go on from there.
    columns.push(stored({ body: body(101), query: 'n=101' }, 101), 1)
    const bodies = Array.from({ length: columns.length }, (_, i) => columns.recordAt(i, undefined).body)
    expect(bodies).toEqual([...Array.from({ length: 30 }, (_, i) => body(42 + 2 * i)), body(101)])
  })

  it('wraps around its slots: dropped ones are taken again, in order, before it grows', () => {
    const columns = new RecordColumns(4)
    const push = (n: number) => columns.push(stored({ query: `n=${n}` }, n), 1)
    for (let n = 1; n <= 4; n++) push(n)
    columns.dropFirst(3)
    for (let n = 5; n <= 7; n++) push(n)
    expect(Array.from({ length: columns.length }, (_, i) => columns.recordAt(i, undefined).query)).toEqual([
      'n=4',
      'n=5',
      'n=6',
      'n=7',
    ])
    // Full and wrapped: growing keeps the order.
    push(8)
    expect(Array.from({ length: columns.length }, (_, i) => columns.idAt(i))).toEqual([4, 5, 6, 7, 8])
    expect(() => new RecordColumns(6)).toThrow(RangeError)
  })

  it('a record whose texts outgrow a chunk gets one of its own', () => {
    const columns = new RecordColumns()
    const headers = Array.from({ length: 4000 }, (_, i) => [`x-h-${i}`, 'v'.repeat(40)]).flat()
    columns.push(stored({ rawHeaders: headers }, 1), 1)
    columns.push(stored({ path: '/after' }, 2), 1)
    expect(Object.keys(columns.recordAt(0, undefined).headers)).toHaveLength(4000)
    expect(columns.recordAt(1, undefined).path).toBe('/after')
  })
})
