/**
 * Fixtures that are not one JSON body (#31): a stream fixture (`200.stream.jsonl`, `200.stream.sse`)
 * sends its items in order at the stream's pace, a file fixture (`200.png`, `200.csv`) is served as
 * the media type its extension names; each is checked at start-up against what it answers.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { createApp } from '../../src/index.js'
import { silentLogger } from '../../src/common/log.js'

const here = (path: string) => fileURLToPath(new URL(`../descriptions/${path}`, import.meta.url))
const streams = here('streams.yaml')
const streamFixtures = here('stream-file-fixtures')
const files = here('file-fixtures.yaml')
const fileFixtures = here('file-fixtures')

/** A fixtures folder holding one file, for the start-up errors. */
function folderWith(operation: string, name: string, text: string | Uint8Array): string {
  const dir = mkdtempSync(join(tmpdir(), 'file-fixtures-'))
  mkdirSync(join(dir, operation))
  writeFileSync(join(dir, operation, name), text)
  return dir
}

describe('stream fixtures (#31 §2)', () => {
  it('sends an SSE file’s events in order, with their names and ids, and its closing [DONE]', async () => {
    const app = await createApp({ spec: streams, fixtures: streamFixtures, logger: silentLogger })
    const response = await app.request('/events', { headers: { prefer: 'stream-interval=0' } })
    expect(response.headers.get('content-type')).toBe('text/event-stream')
    expect(await response.text()).toBe(
      'event: token\nid: a1\ndata: {"token":"Hello","index":0}\n\n' +
        'event: token\nid: a2\ndata: {"token":" world","index":1}\n\n' +
        'data: [DONE]\n\n',
    )
    const [entry] = app.mock.requests({ operation: 'events' })
    expect(entry!.response!.stream).toMatchObject({ items: 2, ended: 'complete' })
  })

  it('resumes after the fixture’s own event id, and after its last event sends only the closing one', async () => {
    const app = await createApp({ spec: streams, fixtures: streamFixtures, logger: silentLogger })
    const after = async (id: string) =>
      (await app.request('/events', { headers: { prefer: 'stream-interval=0', 'last-event-id': id } })).text()
    expect(await after('a1')).toBe('event: token\nid: a2\ndata: {"token":" world","index":1}\n\ndata: [DONE]\n\n')
    expect(await after('a2')).toBe('data: [DONE]\n\n')
  })

  it('fills a JSON Lines item’s placeholders from the request, and stream-items takes the first items', async () => {
    const app = await createApp({ spec: streams, fixtures: streamFixtures, logger: silentLogger })
    const text = await (
      await app.request('/lines', { headers: { prefer: 'stream-interval=0', 'x-user': 'ana' } })
    ).text()
    expect(
      text
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual([
      { level: 'info', message: 'hello ana' },
      { level: 'warn', message: 'second' },
      { level: 'info', message: 'third' },
    ])
    const first = await (
      await app.request('/lines', { headers: { prefer: 'stream-items=1, stream-interval=0' } })
    ).text()
    expect(first).toBe('{"level":"info","message":"hello "}\n')
    const named = await (
      await app.request('/lines', { headers: { prefer: 'example=short, stream-interval=0' } })
    ).text()
    expect(named).toBe('{"level":"warn","message":"the named stream"}\n')
  })

  it('paces a fixture’s items as made ones are', async () => {
    const app = await createApp({ spec: streams, fixtures: streamFixtures, logger: silentLogger })
    const started = performance.now()
    await (await app.request('/lines', { headers: { prefer: 'stream-interval=60' } })).text()
    // Three items: two pauses between them.
    expect(performance.now() - started).toBeGreaterThanOrEqual(110)
  })

  it('stops start-up on an item that breaks the item schema, naming the file and the item', async () => {
    const fixtures = folderWith(
      'lines',
      '200.stream.jsonl',
      '{"level":"info","message":"ok"}\n{"level":"loud","message":"x"}\n',
    )
    await expect(createApp({ spec: streams, fixtures, logger: silentLogger })).rejects.toThrow(
      /200\.stream\.jsonl does not match the 200 response of lines: item 2: body\.level must be one of/,
    )
  })

  it('stops start-up on a line that is not JSON, an empty stream, and a stream for a response that streams nothing', async () => {
    await expect(
      createApp({
        spec: streams,
        fixtures: folderWith('lines', '200.stream.jsonl', '{"level":"info",\n'),
        logger: silentLogger,
      }),
    ).rejects.toMatchObject({ code: 'fixture_not_json', message: expect.stringContaining('(line 1)') })
    await expect(
      createApp({
        spec: streams,
        fixtures: folderWith('events', '200.stream.sse', ': nothing\n\n'),
        logger: silentLogger,
      }),
    ).rejects.toMatchObject({ code: 'fixture_empty_stream' })
    await expect(
      createApp({ spec: files, fixtures: folderWith('report', '200.stream.jsonl', '"a"\n'), logger: silentLogger }),
    ).rejects.toMatchObject({
      code: 'fixture_no_matching_media',
      message: expect.stringContaining('a stream of items'),
    })
  })
})

describe('file fixtures (#31 §3)', () => {
  it('serves a PNG under image/* as image/png, byte for byte, with its headers sidecar', async () => {
    const app = await createApp({ spec: files, fixtures: fileFixtures, logger: silentLogger })
    const response = await app.request('/logo')
    expect(response.headers.get('content-type')).toBe('image/png')
    expect(response.headers.get('cache-control')).toBe('max-age=60')
    const bytes = new Uint8Array(await response.arrayBuffer())
    expect(Buffer.from(bytes).equals(readFileSync(join(fileFixtures, 'logo', '200.png')))).toBe(true)
    expect(app.mock.coverage().operations.find((o) => o.operation === 'logo')?.responses[0]?.bodies).toEqual([
      { name: 'default', origin: 'fixture', answered: 1 },
    ])
  })

  it('serves a CSV as text of the declared text/csv, and an octet stream’s bytes as they are', async () => {
    const app = await createApp({ spec: files, fixtures: fileFixtures, logger: silentLogger })
    const csv = await app.request('/report')
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/)
    expect(await csv.text()).toBe('name,price\nmonstera,12.5\nfern,4\n')
    const bin = await app.request('/export')
    expect(bin.headers.get('content-type')).toBe('application/octet-stream')
    const bytes = Buffer.from(await bin.arrayBuffer())
    expect(bytes.equals(readFileSync(join(fileFixtures, 'export', '200.bin')))).toBe(true)
  })

  it('stops start-up on a file over the schema’s maxLength, of a type the response does not declare, or of no known type', async () => {
    await expect(
      createApp({ spec: files, fixtures: folderWith('export', '200.bin', new Uint8Array(65)), logger: silentLogger }),
    ).rejects.toMatchObject({
      code: 'fixture_mismatch',
      message: expect.stringContaining('65 bytes, over the schema’s maxLength 64'.replace('’', "'")),
    })
    await expect(
      createApp({ spec: files, fixtures: folderWith('report', '200.png', new Uint8Array(8)), logger: silentLogger }),
    ).rejects.toMatchObject({ code: 'fixture_no_matching_media', message: expect.stringContaining('is image/png') })
    await expect(
      createApp({ spec: files, fixtures: folderWith('report', '200.nosuchtype', 'x'), logger: silentLogger }),
    ).rejects.toMatchObject({ code: 'fixture_bad_name' })
  })
})
