/**
 * Streamed answers (#31 §2) over a socket, read by the clients people use: the `openai` SDK on
 * OpenAI's own description (trimmed, test/descriptions/wild/openai/), the `eventsource` package's
 * EventSource, and fetch with a reader. A client that leaves ends its stream at once.
 */
import { EventSource } from 'eventsource'
import { meros } from 'meros/browser'
import OpenAI from 'openai'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type MockServer, startMockServer } from '../../src/index.js'
import { silentLogger } from '../../src/common/log.js'
import { within } from '../support/processes.js'

const OPENAI = fileURLToPath(new URL('../descriptions/wild/openai/openai-chat-speech-images.yaml', import.meta.url))
const STREAMS = fileURLToPath(new URL('../descriptions/streams.yaml', import.meta.url))

const FAULTS = fileURLToPath(new URL('../descriptions/streams-fixtures', import.meta.url))

let openai: MockServer
let streams: MockServer
beforeAll(async () => {
  ;[openai, streams] = await Promise.all([
    startMockServer({ spec: OPENAI, port: 0, logger: silentLogger }),
    startMockServer({ spec: STREAMS, port: 0, logger: silentLogger, fixtures: FAULTS }),
  ])
})
afterAll(async () => {
  await Promise.all([openai?.close(), streams?.close()])
})

/** The journal's newest entry of an operation, as `GET /__mock/requests` lists it. */
async function lastEntry(server: MockServer, operation: string) {
  const listed = (await (await fetch(`${server.url}/__mock/requests?operation=${operation}`)).json()) as {
    requests: Array<{ response?: { stream?: { items: number; bytes: number; ended: string } } }>
  }
  return listed.requests.at(-1)
}

describe('a chat completion streamed to the openai SDK (#31 §2)', () => {
  it('assembles the message from the chunks the mock streams from CreateChatCompletionStreamResponse', async () => {
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: openai.url, maxRetries: 0, timeout: 10_000 })
    const stream = await client.chat.completions.create(
      { model: 'gpt-4o', messages: [{ role: 'user', content: 'Say hello' }], stream: true },
      // The SDK asks for JSON even for a stream; a mock answers what the client accepts.
      { headers: { accept: 'text/event-stream' } },
    )
    const chunks = []
    for await (const chunk of stream) chunks.push(chunk)
    expect(chunks).toHaveLength(3)
    for (const chunk of chunks) expect(chunk.object).toBe('chat.completion.chunk')
    const message = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')
    expect(message.length).toBeGreaterThan(0)
    expect(message).toBe(chunks[0]!.choices[0]!.delta.content!.repeat(3))
    expect((await lastEntry(openai, 'createChatCompletion'))?.response?.stream).toMatchObject({
      items: 3,
      ended: 'complete',
    })
  })

  it('streams the chunks of a stream fixture, in order, each filled from the request', async () => {
    const fixtures = fileURLToPath(new URL('../descriptions/openai-stream-fixtures', import.meta.url))
    const scripted = await startMockServer({ spec: OPENAI, port: 0, logger: silentLogger, fixtures })
    try {
      const client = new OpenAI({ apiKey: 'sk-test', baseURL: scripted.url, maxRetries: 0, timeout: 10_000 })
      const stream = await client.chat.completions.create(
        { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello' }], stream: true },
        { headers: { accept: 'text/event-stream', prefer: 'stream-interval=10' } },
      )
      let message = ''
      const models = new Set<string>()
      for await (const chunk of stream) {
        message += chunk.choices[0]?.delta.content ?? ''
        models.add(chunk.model)
      }
      expect(message).toBe('Hello from the mock!')
      expect([...models]).toEqual(['gpt-4o-mini'])
    } finally {
      await scripted.close()
    }
  })

  it('sends as many chunks as Prefer: stream-items asks', async () => {
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: openai.url, maxRetries: 0, timeout: 10_000 })
    const stream = await client.chat.completions.create(
      { model: 'gpt-4o', messages: [{ role: 'user', content: 'Count' }], stream: true },
      { headers: { accept: 'text/event-stream', prefer: 'stream-items=7, stream-interval=5' } },
    )
    let count = 0
    for await (const chunk of stream) count += chunk.choices.length > 0 ? 1 : 0
    expect(count).toBe(7)
  })
})

describe('sequential media types read by their clients (#31 §2)', () => {
  it('an EventSource gets each item as an event with its id, then the closing [DONE] the example shows', async () => {
    const received = await within(
      10_000,
      'the events',
      new Promise<Array<{ id: string; data: string }>>((resolve, reject) => {
        const source = new EventSource(`${streams.url}/events`)
        const events: Array<{ id: string; data: string }> = []
        source.onmessage = (event) => {
          events.push({ id: event.lastEventId, data: event.data })
          if (event.data === '[DONE]') {
            source.close()
            resolve(events)
          }
        }
        source.onerror = () => {
          source.close()
          reject(new Error(`the stream failed after ${events.length} events`))
        }
      }),
    )
    expect(received).toHaveLength(4)
    expect(received.slice(0, 3).map((e) => e.id)).toEqual(['1', '2', '3'])
    for (const { data } of received.slice(0, 3)) expect(JSON.parse(data)).toMatchObject({ token: expect.any(String) })
    expect(received.at(-1)!.data).toBe('[DONE]')
  })

  it('JSON Lines: one item a line, each meeting the schema; JSON text sequences: each item after RS', async () => {
    const lines = await (await fetch(`${streams.url}/lines`, { headers: { prefer: 'stream-interval=0' } })).text()
    const items = lines
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(items).toHaveLength(3)
    for (const item of items) expect(['info', 'warn']).toContain(item.level)
    const response = await fetch(`${streams.url}/sequence`, {
      headers: { prefer: 'stream-items=4, stream-interval=0' },
    })
    expect(response.headers.get('content-type')).toBe('application/json-seq')
    const texts = (await response.text()).split('\x1e').slice(1)
    expect(texts).toHaveLength(4)
    for (const text of texts) expect(JSON.parse(text)).toBeGreaterThanOrEqual(1)
  })

  it('multipart/mixed: each item a JSON part, read by meros (the parser GraphQL clients use for @defer)', async () => {
    const response = await fetch(`${streams.url}/parts`, { headers: { prefer: 'stream-items=4, stream-interval=20' } })
    expect(response.headers.get('content-type')).toMatch(/^multipart\/mixed; boundary=/)
    const parts = await meros<{ path: string[]; data: { name: string } }>(response)
    if (parts instanceof Response) throw new Error('meros did not read a multipart body')
    const read = []
    for await (const part of parts) {
      expect(part.json).toBe(true)
      expect(part.headers['content-type']).toBe('application/json')
      read.push(part.body)
    }
    expect(read).toHaveLength(4)
    for (const item of read) expect(item).toMatchObject({ path: expect.any(Array), data: { name: expect.any(String) } })
    expect((await lastEntry(streams, 'parts'))?.response?.stream).toMatchObject({ items: 4, ended: 'complete' })
  })

  it('paces the items: stream-interval=150 takes at least 300 ms for 3 items', async () => {
    const started = performance.now()
    await (await fetch(`${streams.url}/lines`, { headers: { prefer: 'stream-interval=150' } })).text()
    expect(performance.now() - started).toBeGreaterThanOrEqual(290)
  })

  it('a client that leaves ends the stream at once: nothing more is made, the journal says so', async () => {
    const abort = new AbortController()
    const response = await fetch(`${streams.url}/lines`, {
      headers: { prefer: 'stream-items=1000, stream-interval=50' },
      signal: abort.signal,
    })
    const reader = response.body!.getReader()
    await reader.read()
    abort.abort()
    await reader.cancel().catch(() => {})
    let entry = await lastEntry(streams, 'lines')
    for (let polls = 0; polls < 50 && entry?.response?.stream?.ended === 'streaming'; polls++) {
      await new Promise((resolve) => setTimeout(resolve, 20))
      entry = await lastEntry(streams, 'lines')
    }
    const ended = entry!.response!.stream!
    expect(ended.ended).toBe('client closed')
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect((await lastEntry(streams, 'lines'))!.response!.stream!.items).toBe(ended.items)
    expect(ended.items).toBeLessThan(10)
  })

  it('refuses a stream-items it cannot send, naming the bounds', async () => {
    const response = await fetch(`${streams.url}/lines`, { headers: { prefer: 'stream-items=0' } })
    expect(response.status).toBeGreaterThanOrEqual(400)
    expect(await response.text()).toContain('stream-items= must be a whole number from 1 to 1000')
  })
})

describe('faults in the middle of a stream, from a scenario (#31 §2)', () => {
  const inScenario = (scenario: string, signal?: AbortSignal) =>
    fetch(`${streams.url}/faulty`, {
      headers: { 'x-mock-scenario': scenario },
      signal: signal ?? AbortSignal.timeout(10_000),
    })

  it('cut: the connection breaks after the second item, without the end of the body', async () => {
    const response = await inScenario('cut')
    expect(response.status).toBe(200)
    const reader = response.body!.getReader()
    let text = ''
    await expect(
      (async () => {
        for (;;) {
          const { value, done } = await reader.read()
          if (done) return
          text += new TextDecoder().decode(value)
        }
      })(),
    ).rejects.toThrow()
    expect(text.match(/^id: /gm)).toHaveLength(2)
    expect((await lastEntry(streams, 'faulty'))?.response?.stream).toMatchObject({ items: 2, ended: 'cut' })
  })

  it('stall: one item, then nothing until the client leaves', async () => {
    const abort = new AbortController()
    const response = await inScenario('stall', abort.signal)
    const reader = response.body!.getReader()
    const first = new TextDecoder().decode((await reader.read()).value)
    expect(first.match(/^id: /gm)).toHaveLength(1)
    const more = await Promise.race([
      reader.read().then(() => 'more'),
      new Promise((r) => setTimeout(() => r('nothing'), 300)),
    ])
    expect(more).toBe('nothing')
    expect((await lastEntry(streams, 'faulty'))?.response?.stream).toMatchObject({ items: 1, ended: 'stalled' })
    abort.abort()
  })

  it('malformed: the third item is not JSON, the others are', async () => {
    const text = await (await inScenario('malformed')).text()
    const data = [...text.matchAll(/^data: (.*)$/gm)].map((m) => m[1]!)
    expect(data).toHaveLength(4)
    const parses = data.map((d) => {
      try {
        JSON.parse(d)
        return true
      } catch {
        return false
      }
    })
    expect(parses).toEqual([true, true, false, true])
  })
})
