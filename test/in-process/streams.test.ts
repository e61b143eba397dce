/** Streamed answers (#31 §2) through app.request(): framing, the item schema, pacing controls, dynamic items, the journal. */
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { createApp } from '../../src/index.js'
import { silentLogger } from '../../src/common/log.js'

const spec = fileURLToPath(new URL('../descriptions/streams.yaml', import.meta.url))

describe('streamed answers in process (#31 §2)', () => {
  it('frames each item as Server-Sent Events, with an id, and ends with the closing event the example shows', async () => {
    const app = await createApp({ spec, logger: silentLogger })
    const response = await app.request('/events', { headers: { prefer: 'stream-interval=0' } })
    expect(response.headers.get('content-type')).toBe('text/event-stream')
    expect(response.headers.get('cache-control')).toBe('no-cache')
    const blocks = (await response.text()).split('\n\n').filter(Boolean)
    expect(blocks).toHaveLength(4)
    blocks.slice(0, 3).forEach((block, i) => {
      const [id, data] = block.split('\n')
      expect(id).toBe(`id: ${i + 1}`)
      expect(JSON.parse(data!.slice('data: '.length))).toMatchObject({ token: expect.any(String) })
    })
    expect(blocks[3]).toBe('data: [DONE]')
    const [entry] = app.mock.requests({ operation: 'events' })
    expect(entry!.response!.stream).toMatchObject({ items: 3, ended: 'complete' })
  })

  it('resumes after the Last-Event-ID an EventSource sends when it reconnects', async () => {
    const app = await createApp({ spec, logger: silentLogger })
    const text = await (
      await app.request('/events', { headers: { prefer: 'stream-items=5, stream-interval=0', 'last-event-id': '3' } })
    ).text()
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => m[1])
    expect(ids).toEqual(['4', '5'])
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true)
    const [entry] = app.mock.requests({ operation: 'events' })
    expect(entry!.response!.stream).toMatchObject({ items: 2, ended: 'complete' })
  })

  it('makes each item anew with --dynamic, every one meeting the item schema', async () => {
    const app = await createApp({ spec, logger: silentLogger, dynamic: true, seed: 7 })
    const text = await (
      await app.request('/lines', { headers: { prefer: 'stream-items=20, stream-interval=0' } })
    ).text()
    const items = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { level: string; message: string })
    expect(items).toHaveLength(20)
    for (const item of items) expect(['info', 'warn']).toContain(item.level)
    expect(new Set(items.map((item) => item.message)).size).toBeGreaterThan(1)
  })

  it('judges a JSON Lines request body item by item, naming the line that breaks the item schema', async () => {
    const app = await createApp({ spec, logger: silentLogger })
    const send = (body: string) =>
      app.request('/upload', { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body })
    expect((await send('{"n":1}\n{"n":2}\n\n{"n":3}\n')).status).toBe(204)
    const refused = await send('{"n":1}\n{"n":"two"}\n{"n":\n')
    expect(refused.status).toBe(422)
    const { message } = (await refused.json()) as { message: string }
    expect(message).toContain('body[1].n must be an integer')
    expect(message).toContain('body[2] is not valid JSON')
  })

  it('the faults every answer knows (reset, empty) apply to a streamed answer: no item is sent', async () => {
    const fixtures = fileURLToPath(new URL('../descriptions/streams-fixtures', import.meta.url))
    const app = await createApp({ spec, logger: silentLogger, fixtures })
    for (const fault of ['reset', 'empty'])
      await expect(app.request('/faulty', { headers: { 'x-mock-scenario': fault } })).rejects.toMatchObject({ fault })
  })

  it('stream.end says how a stream ends after its items: end: cut breaks it; an unknown end stops start-up', async () => {
    const fixtures = fileURLToPath(new URL('../descriptions/streams-fixtures', import.meta.url))
    const app = await createApp({ spec, logger: silentLogger, fixtures })
    const response = await app.request('/faulty', { headers: { 'x-mock-scenario': 'ends-cut' } })
    await expect(response.text()).rejects.toThrow(/stream cut after item 2/)
    const { mkdtempSync, writeFileSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const bad = mkdtempSync(join(tmpdir(), 'stream-end-'))
    writeFileSync(
      join(bad, 'scenarios.yaml'),
      'broken:\n  rules:\n    faulty: { stream: { items: 2, end: explode } }\n',
    )
    await expect(createApp({ spec, logger: silentLogger, fixtures: bad })).rejects.toThrow(
      /"end" is "explode", none of complete, cut, stall/,
    )
  })

  it('a scenario’s stream.cut fails the body’s reader after its items; a bad stream field stops start-up naming it', async () => {
    const fixtures = fileURLToPath(new URL('../descriptions/streams-fixtures', import.meta.url))
    const app = await createApp({ spec, logger: silentLogger, fixtures })
    const response = await app.request('/faulty', { headers: { 'x-mock-scenario': 'cut' } })
    await expect(response.text()).rejects.toThrow(/stream cut after item 2/)
    expect(app.mock.requests({ operation: 'faulty' })[0]!.response!.stream).toMatchObject({ items: 2, ended: 'cut' })
    const { mkdtempSync, writeFileSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const bad = mkdtempSync(join(tmpdir(), 'stream-rule-'))
    writeFileSync(
      join(bad, 'scenarios.yaml'),
      'broken:\n  rules:\n    faulty: { stream: { items: 5, cut: 1, stall: 2 } }\n',
    )
    await expect(createApp({ spec, logger: silentLogger, fixtures: bad })).rejects.toThrow(/names more than one fault/)
  })

  it('refuses a stream-interval beyond 10 s, and counts a streamed answer in coverage under its media type', async () => {
    const app = await createApp({ spec, logger: silentLogger })
    const refused = await app.request('/lines', { headers: { prefer: 'stream-interval=60000' } })
    expect(refused.status).toBeGreaterThanOrEqual(400)
    await (await app.request('/sequence', { headers: { prefer: 'stream-interval=0' } })).text()
    const row = app.mock.coverage().operations.find((o) => o.operation === 'sequence')!.responses[0]!
    expect([row.mediaType, row.answered]).toEqual(['application/json-seq', 1])
  })
})
