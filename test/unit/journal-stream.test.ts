/**
 * The journal's live feed and its stream (`GET /__mock/requests/stream`, #29), with small limits:
 * a reader that does not read, the cap on streams, the feed with no listener.
 */
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { addJournalStreamRoute } from '../../src/admin/journal-stream.js'
import { FEED_BATCH_MS, createJournal } from '../../src/journal/journal.js'
import { isMockError } from '../../src/errors/index.js'
import { journaledPost } from '../support/builders.js'
import { parseEvent } from '../support/sse-reader.js'

/** Until the feed has handed on what was recorded before. */
const tick = () => new Promise((resolve) => setTimeout(resolve, FEED_BATCH_MS + 10))

function streamApp(limits = { maxStreams: 2, queueEntries: 5, queueBytes: 1024 * 1024 }, journalSize = 100) {
  const journal = createJournal(journalSize)
  const app = new Hono()
  const closing = new AbortController()
  addJournalStreamRoute(app, journal, closing.signal, limits)
  app.onError((error) =>
    isMockError(error) ? Response.json({ code: error.kind }, { status: error.status }) : Response.error(),
  )
  return { app, journal, closing }
}

/** Reads what the stream has ready now: one chunk, or nothing within a few ticks. */
async function readReady(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  const chunk = await Promise.race([reader.read(), new Promise<undefined>((r) => setTimeout(() => r(undefined), 50))])
  return chunk?.value ? new TextDecoder().decode(chunk.value) : ''
}

const eventsOf = (text: string) =>
  text
    .split('\n\n')
    .map(parseEvent)
    .filter((e) => e !== undefined)

describe('the journal feed', () => {
  it('hands each new entry to a listener after it is recorded, in a batch,, and none after it unsubscribes', async () => {
    const journal = createJournal(10)
    const heard: number[] = []
    const stop = journal.subscribe({}, (entry) => heard.push(entry.id))
    journal.recordRequest(journaledPost())
    expect(heard).toEqual([])
    await tick()
    expect(heard).toEqual([1])
    stop()
    journal.recordRequest(journaledPost())
    await tick()
    expect(heard).toEqual([1])
    expect(journal.listRequests().map((e) => e.id)).toEqual([1, 2])
  })

  it('gives a listener only the entries its filter matches, with the ids the listing gives', async () => {
    const journal = createJournal(10)
    const heard: Array<[number, number]> = []
    journal.subscribe({ status: '4xx' }, (entry) => heard.push([entry.id, entry.status]))
    journal.recordRequest(journaledPost())
    journal.recordRequest(journaledPost({ status: 400 }))
    await tick()
    expect(heard).toEqual([[2, 400]])
    expect(journal.listRequests({ status: 400 }).map((e) => e.id)).toEqual([2])
  })

  it('feeds a listener even when the journal keeps nothing (--journal-size 0)', async () => {
    const journal = createJournal(0)
    const heard: number[] = []
    journal.subscribe({}, (entry) => heard.push(entry.id))
    journal.recordRequest(journaledPost())
    await tick()
    expect(heard).toEqual([1])
    expect(journal.listRequests()).toEqual([])
  })
})

describe('the summary view (?view=summary, the dashboard’s)', () => {
  it('sends one event a batch, its rows’ fields only, redacted, and shares the batch among readers of one filter', async () => {
    const journal = createJournal(100, { headers: new Set(), query: new Set(['apikey']) })
    const batches: Array<{ texts: readonly string[]; ids: readonly number[] }> = []
    journal.subscribeSummaries({}, (batch) => batches.push(batch))
    journal.subscribeSummaries({}, (batch) => batches.push(batch))
    journal.recordRequest(journaledPost({ query: 'apikey=s3cret&n=1', session: 'a' }))
    journal.recordRequest(journaledPost({ status: 400, valid: false }))
    await tick()
    expect(batches).toHaveLength(2)
    expect(batches[0]).toBe(batches[1])
    const [first, second] = batches[0]!.texts.map((text) => JSON.parse(text))
    const entry = journal.getRequest(1)!
    expect(first).toEqual({
      id: 1,
      time: entry.time,
      method: 'POST',
      path: entry.path,
      query: 'apikey=[redacted]&n=1',
      operation: entry.operation ?? null,
      status: entry.status,
      valid: true,
      session: 'a',
      answeredBy: null,
      durationMs: entry.durationMs,
    })
    expect([second.id, second.status, second.valid, second.session]).toEqual([2, 400, false, null])
    expect(batches[0]!.ids).toEqual([1, 2])
  })

  it('streams summaries, replays after Last-Event-ID without sending one twice, and refuses a view it does not know', async () => {
    const { app, journal } = streamApp()
    for (let n = 1; n <= 3; n++) journal.recordRequest(journaledPost({ query: `n=${n}` }))
    const response = await app.request('/requests/stream?view=summary', { headers: { 'last-event-id': '1' } })
    const reader = response.body!.getReader()
    journal.recordRequest(journaledPost({ query: 'n=4' }))
    await tick()
    let text = ''
    for (let reads = 0; reads < 5 && !text.includes('n=4'); reads++) text += await readReady(reader)
    const events = eventsOf(text).filter((e) => e.type === 'summaries')
    expect(events.map((e) => e.id)).toEqual(['3', '4'])
    expect(events.flatMap((e) => (JSON.parse(e.data) as Array<{ query: string }>).map((s) => s.query))).toEqual([
      'n=2',
      'n=3',
      'n=4',
    ])
    await reader.cancel()
    expect((await app.request('/requests/stream?view=full')).status).toBe(400)
  })

  it('summarises the newest 100 of a busy batch and counts the others, which the stream tells in an event: skipped', async () => {
    const { app, journal } = streamApp({ maxStreams: 2, queueEntries: 5, queueBytes: 1024 * 1024 }, 1000)
    const batches: Array<{ ids: readonly number[]; skipped: number }> = []
    journal.subscribeSummaries({}, (batch) => batches.push(batch))
    const response = await app.request('/requests/stream?view=summary')
    const reader = response.body!.getReader()
    await readReady(reader)
    for (let n = 1; n <= 150; n++) journal.recordRequest(journaledPost({ query: `n=${n}` }))
    await tick()
    expect(batches).toHaveLength(1)
    expect(batches[0]!.skipped).toBe(50)
    expect(batches[0]!.ids).toEqual(Array.from({ length: 100 }, (_, i) => 51 + i))
    let text = ''
    for (let reads = 0; reads < 5 && !text.includes('n=150'); reads++) text += await readReady(reader)
    const events = eventsOf(text)
    expect(events.map((e) => e.type)).toEqual(['skipped', 'summaries'])
    expect(JSON.parse(events[0]!.data)).toEqual({ skipped: 50 })
    expect(events[1]!.id).toBe('150')
    // The journal keeps them all.
    expect(journal.getRequest(1)?.query).toBe('n=1')
    await reader.cancel()
  })

  it('finds an entry by id while the journal holds it, and not once it has let it go', async () => {
    const journal = createJournal(3)
    for (let n = 1; n <= 5; n++) journal.recordRequest(journaledPost({ query: `n=${n}` }))
    expect(journal.getRequest(5)?.query).toBe('n=5')
    expect(journal.getRequest(3)?.query).toBe('n=3')
    expect(journal.getRequest(2)).toBeUndefined()
    expect(journal.getRequest(99)).toBeUndefined()
  })
})

describe('GET /__mock/requests/stream, with small limits', () => {
  it('holds at most its queue for a reader that does not read, then tells it how many it missed', async () => {
    const { app, journal } = streamApp()
    const response = await app.request('/requests/stream')
    const reader = response.body!.getReader()
    expect(await readReady(reader)).toContain('retry: 2000')
    for (let n = 0; n < 20; n++) journal.recordRequest(journaledPost({ query: `n=${n}` }))
    await tick()
    const held = eventsOf(await readReady(reader))
    expect(held.map((e) => e.type)).toEqual(['request', 'request', 'request', 'request', 'request'])
    journal.recordRequest(journaledPost({ query: 'after' }))
    await tick()
    const next = eventsOf(await readReady(reader))
    expect(next.map((e) => [e.type, e.type === 'dropped' ? JSON.parse(e.data) : JSON.parse(e.data).query])).toEqual([
      ['dropped', { dropped: 15 }],
      ['request', 'after'],
    ])
    await reader.cancel()
  })

  it('answers 503 beyond the streams it keeps, and takes a new one once a reader leaves', async () => {
    const { app } = streamApp()
    const first = await app.request('/requests/stream')
    const second = await app.request('/requests/stream')
    const third = await app.request('/requests/stream')
    expect([first.status, second.status, third.status]).toEqual([200, 200, 503])
    expect(await third.json()).toEqual({ code: 'too_many_streams' })
    await first.body!.cancel()
    const fourth = await app.request('/requests/stream')
    expect(fourth.status).toBe(200)
    await Promise.all([second.body!.cancel(), fourth.body!.cancel()])
  })

  it('replays the entries after Last-Event-ID, then the new ones, each once', async () => {
    const { app, journal } = streamApp()
    for (let n = 1; n <= 3; n++) journal.recordRequest(journaledPost({ query: `n=${n}` }))
    const response = await app.request('/requests/stream', { headers: { 'last-event-id': '1' } })
    const reader = response.body!.getReader()
    journal.recordRequest(journaledPost({ query: 'n=4' }))
    await tick()
    let text = ''
    for (let reads = 0; reads < 5 && !text.includes('n=4'); reads++) text += await readReady(reader)
    expect(eventsOf(text).map((e) => e.id)).toEqual(['2', '3', '4'])
    await reader.cancel()
  })

  it('replays the newest 1,000 entries of a larger journal, oldest first', async () => {
    const { app, journal } = streamApp(undefined, 3000)
    for (let n = 1; n <= 2500; n++) journal.recordRequest(journaledPost())
    const response = await app.request('/requests/stream?after=0')
    const reader = response.body!.getReader()
    const ids: string[] = []
    for (let reads = 0; reads < 100 && ids.length < 1000; reads++)
      ids.push(...eventsOf(await readReady(reader)).map((e) => e.id!))
    expect(ids.length).toBe(1000)
    expect([ids[0], ids[999]]).toEqual(['1501', '2500'])
    await reader.cancel()
  })

  it('ends every open stream when the server closes', async () => {
    const { app, closing } = streamApp()
    const response = await app.request('/requests/stream')
    const reader = response.body!.getReader()
    await readReady(reader)
    closing.abort()
    const rest = await reader.read()
    expect(rest.done).toBe(true)
  })

  it('answers 400 for a filter it does not know or an id that is none', async () => {
    const { app } = streamApp()
    expect((await app.request('/requests/stream?colour=red')).status).toBe(400)
    expect((await app.request('/requests/stream?after=abc')).status).toBe(400)
  })

  it('answers HEAD with the head alone, taking no place among the streams', async () => {
    const { app } = streamApp()
    for (let n = 0; n < 3; n++) {
      const head = await app.request('/requests/stream', { method: 'HEAD' })
      expect([head.status, head.headers.get('content-type'), await head.text()]).toEqual([
        200,
        'text/event-stream; charset=utf-8',
        '',
      ])
    }
    const response = await app.request('/requests/stream')
    expect(response.status).toBe(200)
    await response.body!.cancel()
  })
})
