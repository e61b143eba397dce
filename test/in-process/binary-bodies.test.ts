/** Binary bodies (#31 §3) through app.request(): each media type's file, its signature, length and Content-Length. */
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { createApp } from '../../src/index.js'
import { silentLogger } from '../../src/common/log.js'

const spec = fileURLToPath(new URL('../descriptions/binary-bodies.yaml', import.meta.url))

const ascii = (bytes: Uint8Array, from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to))

/** Each file by the signature its format starts with (and, for RIFF files, the type at byte 8). */
const SIGNATURES: Array<[string, string, (bytes: Uint8Array) => boolean]> = [
  ['/png', 'image/png', (b) => ascii(b, 1, 4) === 'PNG' && b[0] === 0x89],
  ['/jpeg', 'image/jpeg', (b) => b[0] === 0xff && b[1] === 0xd8 && b[b.length - 2] !== undefined],
  ['/gif', 'image/gif', (b) => ascii(b, 0, 6) === 'GIF89a'],
  ['/webp', 'image/webp', (b) => ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 12) === 'WEBP'],
  ['/svg', 'image/svg+xml', (b) => new TextDecoder().decode(b).startsWith('<svg ')],
  [
    '/pdf',
    'application/pdf',
    (b) => ascii(b, 0, 8) === '%PDF-1.4' && new TextDecoder().decode(b).trimEnd().endsWith('%%EOF'),
  ],
  ['/wav', 'audio/wav', (b) => ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 12) === 'WAVE'],
  ['/mp3', 'audio/mpeg', (b) => b[0] === 0xff && (b[1]! & 0xe0) === 0xe0],
  ['/zip', 'application/zip', (b) => ascii(b, 0, 4) === 'PK\x05\x06'],
]

describe('binary bodies (#31 §3)', () => {
  it.each(SIGNATURES)('%s answers a file of %s', async (path, type, isFile) => {
    const app = await createApp({ spec, logger: silentLogger })
    const response = await app.request(path)
    expect(response.headers.get('content-type')).toBe(type)
    const bytes = new Uint8Array(await response.arrayBuffer())
    expect(isFile(bytes), `${path} starts ${[...bytes.subarray(0, 12)]}`).toBe(true)
    expect(response.headers.get('x-mock-violations')).toBeNull()
  })

  it('contentEncoding: base64 answers base64 of a real file: a PNG in a JSON string, octet-stream text within maxLength', async () => {
    const app = await createApp({ spec, logger: silentLogger })
    const avatar = await app.request('/avatar')
    expect(avatar.headers.get('content-type')).toMatch(/^application\/json/)
    const png = Buffer.from((await avatar.json()) as string, 'base64')
    expect(SIGNATURES[0]![2](new Uint8Array(png))).toBe(true)
    expect(avatar.headers.get('x-mock-violations')).toBeNull()
    const blob = await (await app.request('/blob')).text()
    expect(blob).toMatch(/^[A-Za-z0-9+/]+={0,2}$/)
    expect(blob.length).toBeLessThanOrEqual(16)
    expect(Buffer.from(blob, 'base64').byteLength).toBe(12)
  })

  it('writes a PDF whose cross-reference table points at its objects', async () => {
    const app = await createApp({ spec, logger: silentLogger })
    const text = new TextDecoder('latin1').decode(await (await app.request('/pdf')).arrayBuffer())
    const xref = Number(/startxref\n(\d+)\n/.exec(text)![1])
    expect(text.slice(xref, xref + 4)).toBe('xref')
    const offsets = [...text.slice(xref).matchAll(/^(\d{10}) 00000 n $/gm)].map((m) => Number(m[1]))
    expect(offsets).toHaveLength(4)
    offsets.forEach((offset, i) => expect(text.slice(offset).startsWith(`${i + 1} 0 obj`)).toBe(true))
  })

  it('answers an octet stream with random bytes within minLength and maxLength: the same in static mode, new with --dynamic', async () => {
    const fixed = await createApp({ spec, logger: silentLogger })
    const first = new Uint8Array(await (await fixed.request('/bytes')).arrayBuffer())
    const again = new Uint8Array(await (await fixed.request('/bytes')).arrayBuffer())
    expect(first.byteLength).toBeGreaterThanOrEqual(10)
    expect(first.byteLength).toBeLessThanOrEqual(20)
    expect(again).toEqual(first)
    const dynamic = await createApp({ spec, logger: silentLogger, dynamic: true, seed: 3 })
    const made = [0, 1, 2].map(async () => new Uint8Array(await (await dynamic.request('/bytes')).arrayBuffer()))
    const bodies = await Promise.all(made)
    for (const body of bodies) expect(body.byteLength).toBeGreaterThanOrEqual(10)
    expect(new Set(bodies.map((b) => b.join(','))).size).toBeGreaterThan(1)
  })

  it('OpenAI’s POST /audio/speech (application/octet-stream, format: binary) answers bytes, not the text "string"', async () => {
    const openai = fileURLToPath(new URL('../descriptions/wild/openai/openai-chat-speech-images.yaml', import.meta.url))
    const app = await createApp({ spec: openai, logger: silentLogger })
    const response = await app.request('/audio/speech', {
      method: 'POST',
      headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tts-1', input: 'Hello', voice: 'alloy' }),
    })
    expect(response.status).toBe(200)
    const bytes = new Uint8Array(await response.arrayBuffer())
    expect(bytes.byteLength).toBe(256)
    expect(new TextDecoder().decode(bytes)).not.toBe('string')
  })
})
