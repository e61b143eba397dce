/**
 * Proxy mode's streams (#31 §2) over real sockets: a node:http upstream on loopback writes Server-Sent
 * Events, JSON Lines and JSON text sequences item by item, holding the rest until the test has seen
 * the first, so that a proxy that held the whole body never passes anything. Each item is judged as
 * it passes; `--errors` ends the stream at a broken one; `--record` writes stream fixtures; a client
 * that leaves closes the upstream's answer.
 */
import { readFile, readdir } from 'node:fs/promises'
import type { ServerResponse } from 'node:http'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { type AppOptions, type MockServer, startMockServer } from '../../src/index.js'
import type { Logger } from '../../src/common/log.js'
import { createReceivers } from '../support/receivers.js'
import { within } from '../support/processes.js'
import { removeTempDirs, tempDir } from '../support/temp-dirs.js'

const SEQUENCES = join(import.meta.dirname, '../descriptions/proxy/sequences.yaml')
const receivers = createReceivers()
const servers: MockServer[] = []

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
  await receivers.closeAll()
  await removeTempDirs()
})
afterAll(() => receivers.closeAll())

/** A logger that keeps its warnings. */
function keptWarnings(): { logger: Logger; warnings: string[] } {
  const warnings: string[] = []
  return { warnings, logger: { info() {}, warn: (message) => void warnings.push(message), error() {} } }
}

async function proxyTo(upstream: string, options: AppOptions = {}): Promise<MockServer> {
  const server = await startMockServer({
    spec: SEQUENCES,
    proxy: upstream,
    port: 0,
    logger: keptWarnings().logger,
    proxyTimeoutMs: 5000,
    ...options,
  })
  servers.push(server)
  return server
}

/** An upstream that answers with `contentType` and `body`, whole, at once. */
async function wholeUpstream(contentType: string, body: string) {
  return (await receivers.start((res) => void res.writeHead(200, { 'content-type': contentType }).end(body))).origin
}

/**
 * An upstream that answers with `contentType`, writes `first` at once and holds `rest` until the test
 * calls `release()`; `closed` resolves when its answer's connection closes, `finished` tells whether it
 * had ended its answer by then.
 */
async function holdingUpstream(contentType: string, first: string, rest: string[] = []) {
  let answer: ServerResponse | undefined
  let answered: () => void = () => undefined
  const started = new Promise<void>((resolve) => (answered = resolve))
  const receiver = await receivers.start((res) => {
    answer = res
    res.writeHead(200, { 'content-type': contentType })
    res.write(first)
    answered()
  })
  return {
    origin: receiver.origin,
    async release() {
      await started
      for (const part of rest) answer!.write(part)
      answer!.end()
    },
    /** Writes more, without ending; resolves once it is written, or the answer is closed. */
    async write(part: string | Buffer) {
      await started
      if (answer!.destroyed) return
      await new Promise<void>((resolve) => {
        const written = () => {
          answer!.off('close', written)
          resolve()
        }
        answer!.once('close', written)
        answer!.write(part, written)
      })
    },
    /** Resolves once the upstream's answer is closed, by its end or by the proxy; with whether it had ended. */
    async closed(): Promise<{ finished: boolean }> {
      await within(5000, 'the upstream answer', started)
      const res = answer!
      if (res.closed) return { finished: res.writableFinished }
      await within(5000, "the upstream answer's close", new Promise((resolve) => res.once('close', resolve)))
      return { finished: res.writableFinished }
    },
  }
}

/** Reads a body as text until `done(text)` holds or it ends; bounded. */
async function readUntil(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  done: (text: string) => boolean,
  text = '',
): Promise<string> {
  const decoder = new TextDecoder()
  return within(
    5000,
    'the streamed items',
    (async () => {
      while (!done(text)) {
        const { value, done: ended } = await reader.read()
        if (ended) break
        text += decoder.decode(value, { stream: true })
      }
      return text
    })(),
  )
}

/** The rest of a body, or what came of it and the error that cut it. */
async function readRest(reader: ReadableStreamDefaultReader<Uint8Array>, text: string) {
  let read = text
  try {
    return {
      text: await readUntil(
        reader,
        (sofar) => {
          read = sofar
          return false
        },
        text,
      ),
    }
  } catch (error) {
    return { text: read, error: error as Error }
  }
}

function lastEntry(server: MockServer) {
  return server.requests().at(-1)!
}

/** Waits until the journal's stream of the last entry has ended; bounded. */
async function endedStream(server: MockServer) {
  await within(
    5000,
    'the stream to end in the journal',
    (async () => {
      while (lastEntry(server).response?.stream?.ended === 'streaming')
        await new Promise((resolve) => setTimeout(resolve, 10))
    })(),
  )
  return lastEntry(server)
}

const EVENTS = ['data: {"token":"Hel"}\n\n', 'id: 2\nevent: delta\ndata: {"token":"lo"}\n\n', 'data: [DONE]\n\n']

describe('a streamed answer passes through as it arrives (#31 §2)', () => {
  it('an SSE client reads the first event before the upstream sends the next, and gets every byte as sent', async () => {
    const upstream = await holdingUpstream('text/event-stream', EVENTS[0]!, EVENTS.slice(1))
    const server = await proxyTo(upstream.origin)
    const response = await fetch(`${server.url}/events`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/event-stream')
    const reader = response.body!.getReader()
    const first = await readUntil(reader, (text) => text.includes('\n\n'))
    expect(first).toBe(EVENTS[0])
    await upstream.release()
    const { text, error } = await readRest(reader, first)
    expect(error).toBeUndefined()
    expect(text).toBe(EVENTS.join(''))
    const entry = await endedStream(server)
    expect(entry.proxy).toBe('forwarded to the upstream')
    // The closing [DONE] the description's example shows passes, and is no item.
    expect(entry.response?.stream).toEqual({ items: 2, bytes: Buffer.byteLength(EVENTS.join('')), ended: 'complete' })
    expect(entry.responseViolations).toBeUndefined()
  })

  it('JSON Lines and JSON text sequences pass item by item, an item split across writes whole', async () => {
    const lines = await holdingUpstream('application/x-ndjson', '{"n":1}\n{"n"', [':2}\n', '{"n":3}'])
    const server = await proxyTo(lines.origin)
    const reader = (await fetch(`${server.url}/lines`)).body!.getReader()
    const first = await readUntil(reader, (text) => text.length > 0)
    expect(first).toBe('{"n":1}\n')
    await lines.release()
    expect((await readRest(reader, first)).text).toBe('{"n":1}\n{"n":2}\n{"n":3}')
    expect((await endedStream(server)).response?.stream).toMatchObject({ items: 3, ended: 'complete' })

    const sequence = await holdingUpstream('application/json-seq', '\x1e1\n', ['\x1e2\n\x1e', '3\n'])
    const seqServer = await proxyTo(sequence.origin)
    const seqReader = (await fetch(`${seqServer.url}/sequence`)).body!.getReader()
    expect(await readUntil(seqReader, (text) => text.length > 0)).toBe('\x1e1\n')
    await sequence.release()
    expect((await readRest(seqReader, '\x1e1\n')).text).toBe('\x1e1\n\x1e2\n\x1e3\n')
    const entry = await endedStream(seqServer)
    expect(entry.response?.stream).toMatchObject({ items: 3, ended: 'complete' })
    expect(entry.responseViolations).toBeUndefined()
  })
})

describe('each item is judged against the item schema as it passes (#31 §2)', () => {
  it('a broken item passes on, and is named in the journal and the log', async () => {
    const upstream = await wholeUpstream('application/x-ndjson', '{"n":1}\nnot json\n{"n":"three"}\n{"n":4}\n')
    const { logger, warnings } = keptWarnings()
    const server = await proxyTo(upstream, { logger })
    const response = await fetch(`${server.url}/lines`)
    expect(await response.text()).toBe('{"n":1}\nnot json\n{"n":"three"}\n{"n":4}\n')
    const entry = await endedStream(server)
    expect(entry.response?.stream).toMatchObject({ items: 4, ended: 'complete' })
    expect(entry.responseViolations).toEqual([
      { path: 'body[1]', message: expect.stringContaining('is not JSON') },
      { path: 'body[2].n', message: 'must be an integer' },
    ])
    expect(warnings.join('\n')).toMatch(/the 200 stream of lines from http:\/\/127\.0\.0\.1:\d+ has an item against/)
    expect(warnings.join('\n')).toContain('body[2].n must be an integer')
  })

  it('an SSE event against the item schema is reported; comments and the closing [DONE] are not items', async () => {
    const upstream = await wholeUpstream(
      'text/event-stream',
      ': keep-alive\n\ndata: {"token":"a"}\r\n\r\ndata: {"token":1}\n\ndata: [DONE]\n\n',
    )
    const server = await proxyTo(upstream)
    await (await fetch(`${server.url}/events`)).text()
    const entry = await endedStream(server)
    expect(entry.response?.stream).toMatchObject({ items: 2, ended: 'complete' })
    expect(entry.responseViolations).toEqual([{ path: 'body[1].token', message: 'must be a string' }])
  })
})

describe('with --errors, the stream ends at a broken item (#31 §2)', () => {
  it('SSE: an error event naming the problem takes the broken event’s place, and the upstream is let go', async () => {
    const upstream = await holdingUpstream('text/event-stream', 'data: {"token":"a"}\n\ndata: {"nope":1}\n\n', [
      'data: {"token":"never"}\n\n',
    ])
    const server = await proxyTo(upstream.origin, { errors: true })
    const response = await fetch(`${server.url}/events`)
    expect(response.status).toBe(200)
    const text = await within(5000, 'the refused stream', response.text())
    const [first, refusal, ...rest] = text.split('\n\n')
    expect(first).toBe('data: {"token":"a"}')
    expect(rest).toEqual([''])
    expect(refusal).toMatch(/^event: error\ndata: /)
    expect(JSON.parse(refusal!.replace(/^event: error\ndata: /, ''))).toEqual({
      error: 502,
      message: expect.stringMatching(
        /answered events against the description \(2 problems\): body\[1\]\.token is required; body\[1\]\.nope is not declared/,
      ),
    })
    expect(await upstream.closed()).toEqual({ finished: false })
    const entry = await endedStream(server)
    expect(entry.response?.stream).toMatchObject({ items: 1, ended: 'refused' })
    expect(entry.responseViolations).toEqual([
      { path: 'body[1].token', message: 'is required' },
      { path: 'body[1].nope', message: 'is not declared by the schema' },
    ])
  })

  it('JSON Lines: the error item has the description’s Error shape', async () => {
    const upstream = await holdingUpstream('application/x-ndjson', '{"n":1}\n{"n":true}\n{"n":3}\n')
    const server = await proxyTo(upstream.origin, { errors: true })
    const lines = (await (await fetch(`${server.url}/lines`)).text()).split('\n')
    expect(lines[0]).toBe('{"n":1}')
    expect(JSON.parse(lines[1]!)).toEqual({
      error: 502,
      message: expect.stringContaining('body[1].n must be an integer'),
    })
    expect(lines.slice(2)).toEqual([''])
  })
})

describe('a stream that breaks off, stalls or never ends an item ends, and says how (#31 §2)', () => {
  it('an upstream that pauses longer than --proxy-timeout: the stream is cut, or with --errors ends with an error event', async () => {
    for (const errors of [false, true]) {
      const upstream = await holdingUpstream('text/event-stream', 'data: {"token":"a"}\n\n')
      const server = await proxyTo(upstream.origin, { proxyTimeoutMs: 300, errors })
      const reader = (await fetch(`${server.url}/events`)).body!.getReader()
      const { text, error } = await readRest(reader, '')
      expect(text.startsWith('data: {"token":"a"}\n\n')).toBe(true)
      if (errors) {
        expect(error).toBeUndefined()
        expect(text).toMatch(/event: error\ndata: .*stopped sending its answer for 300 ms \(--proxy-timeout\)/)
      } else expect(error).toBeDefined()
      expect((await endedStream(server)).response?.stream).toMatchObject({ items: 1, ended: 'upstream failed' })
      await upstream.release()
    }
  })

  it('an item longer than the proxy holds ends the stream with a report, rather than growing memory', async () => {
    const upstream = await holdingUpstream('application/x-ndjson', '{"n":1}\n')
    const server = await proxyTo(upstream.origin, { errors: true })
    const reader = (await fetch(`${server.url}/lines`)).body!.getReader()
    const first = await readUntil(reader, (text) => text.length > 0)
    // One line of 17 MiB, never ended: the proxy stops at 16.
    const mebibyte = Buffer.alloc(1024 * 1024, 'x')
    await upstream.write('{"n":"')
    for (let i = 0; i < 17; i++) await upstream.write(mebibyte)
    const { text } = await readRest(reader, first)
    const [, refusal] = text.split('\n')
    expect(JSON.parse(refusal!)).toEqual({
      error: 502,
      message: expect.stringContaining('streamed an item longer than 16 MiB, which the proxy does not hold to check'),
    })
    expect(await upstream.closed()).toEqual({ finished: false })
    const entry = await endedStream(server)
    expect(entry.response?.stream).toMatchObject({ items: 1, ended: 'refused' })
    expect(entry.responseViolations).toEqual([
      { path: 'body[1]', message: expect.stringContaining('is longer than the proxy holds') },
    ])
  })
})

describe('a client that leaves stops the upstream at once (#31 §2)', () => {
  it("the upstream's answer is closed, unfinished, and the journal says the client closed", async () => {
    const upstream = await holdingUpstream('text/event-stream', EVENTS[0]!, EVENTS.slice(1))
    const server = await proxyTo(upstream.origin)
    const abort = new AbortController()
    const response = await fetch(`${server.url}/events`, { signal: abort.signal })
    await readUntil(response.body!.getReader(), (text) => text.includes('\n\n'))
    abort.abort()
    expect(await upstream.closed()).toEqual({ finished: false })
    expect((await endedStream(server)).response?.stream).toMatchObject({ items: 1, ended: 'client closed' })
  })
})

describe('--record writes a stream fixture (#31 §2)', () => {
  it('SSE as <status>.stream.sse, the events as they came; JSON Lines as <status>.stream.jsonl, one JSON a line; the mock replays them', async () => {
    const dir = await tempDir('mock-record-streams-', {})
    // A comment or a retry: carries no item: left out of the recording, whose events all carry data.
    const events = await wholeUpstream('text/event-stream', `: hello\n\nretry: 500\n\n${EVENTS.join('')}`)
    const lines = await wholeUpstream('application/x-ndjson', '{"n":1}\n\n{ "n" : 2 }\n')
    const sequence = await wholeUpstream('application/json-seq', '\x1e1\n\x1e2\n')
    for (const [upstream, path] of [
      [events, '/events'],
      [lines, '/lines'],
      [sequence, '/sequence'],
    ] as const) {
      const server = await proxyTo(upstream, { record: dir })
      await (await fetch(`${server.url}${path}`)).text()
      await endedStream(server)
      await server.close()
    }
    expect((await readdir(dir)).sort()).toEqual(['events', 'lines', 'sequence'])
    expect(await readdir(join(dir, 'events'))).toEqual(['200.stream.sse'])
    expect(await readFile(join(dir, 'events/200.stream.sse'), 'utf8')).toBe(EVENTS.join(''))
    expect(await readFile(join(dir, 'lines/200.stream.jsonl'), 'utf8')).toBe('{"n":1}\n{"n":2}\n')
    expect(await readFile(join(dir, 'sequence/200.stream.jsonl'), 'utf8')).toBe('1\n2\n')

    // Replay: plain mock mode on the folder sends the recorded items, the SSE events' names and ids kept.
    const replay = await startMockServer({ spec: SEQUENCES, fixtures: dir, port: 0, logger: keptWarnings().logger })
    servers.push(replay)
    const replayed = await (await fetch(`${replay.url}/events`, { headers: { prefer: 'stream-interval=0' } })).text()
    expect(replayed).toContain('data: {"token":"Hel"}\n\n')
    expect(replayed).toContain('event: delta\nid: 2\ndata: {"token":"lo"}\n\n')
    expect(replayed.endsWith('data: [DONE]\n\n')).toBe(true)
    const replayedLines = await (
      await fetch(`${replay.url}/lines`, { headers: { prefer: 'stream-interval=0' } })
    ).text()
    expect(replayedLines).toBe('{"n":1}\n{"n":2}\n')
  })

  it('a stream with a broken item, or one the client left, is not recorded', async () => {
    const dir = await tempDir('mock-record-streams-', {})
    const broken = await wholeUpstream('application/x-ndjson', '{"n":1}\n{"n":"two"}\n')
    const { logger, warnings } = keptWarnings()
    const server = await proxyTo(broken, { record: dir, logger })
    await (await fetch(`${server.url}/lines`)).text()
    await endedStream(server)

    const left = await holdingUpstream('text/event-stream', EVENTS[0]!)
    const other = await proxyTo(left.origin, { record: dir, logger })
    const abort = new AbortController()
    const response = await fetch(`${other.url}/events`, { signal: abort.signal })
    await readUntil(response.body!.getReader(), (text) => text.includes('\n\n'))
    abort.abort()
    await endedStream(other)
    await Promise.all([server.close(), other.close()])
    expect(await readdir(dir)).toEqual([])
    expect(warnings.join('\n')).toContain('Not recording the 200 stream of lines: an item breaks the contract.')
    expect(warnings.join('\n')).toContain('Not recording the 200 stream of events: the client left before it ended.')
  })
})
