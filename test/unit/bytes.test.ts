// The core's bytes and text helpers (#28) against Node's Buffer, which they replace in the core.
import { describe, expect, it } from 'vitest'
import {
  asciiToBase64Url,
  base64Bytes,
  base64UrlToAscii,
  concatBytes,
  latin1Text,
  utf8ByteLength,
} from '../../src/internal/bytes.js'

const TEXTS = [
  '',
  'plain ASCII',
  'é',
  'Grüße, 植物 and 🌿🌵',
  '\ud83c', // a lone high surrogate
  '\udf3f x', // a lone low surrogate
  'end with a lone high \ud83c',
  '\u07ff\u0800\uffff',
]

describe('utf8ByteLength', () => {
  it.each(TEXTS)('counts %j as Buffer.byteLength does', (text) => {
    expect(utf8ByteLength(text)).toBe(Buffer.byteLength(text))
  })
})

describe('concatBytes', () => {
  it('joins the chunks in order', () => {
    const chunks = [Uint8Array.of(1, 2), new Uint8Array(0), Uint8Array.of(3)]
    expect([...concatBytes(chunks, 3)]).toEqual([1, 2, 3])
  })
})

describe('latin1Text', () => {
  it('reads every byte as the character of that code, 0x80-0x9F included (not windows-1252)', () => {
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i)
    expect(latin1Text(bytes)).toBe(Buffer.from(bytes).toString('latin1'))
  })

  it('reads a body longer than one slice whole', () => {
    const bytes = new Uint8Array(20_000).fill(0xe9)
    expect(latin1Text(bytes)).toBe('é'.repeat(20_000))
  })
})

describe('base64', () => {
  it('decodes standard base64 as Buffer does', () => {
    const encoded = Buffer.from('user:pässword').toString('base64')
    expect([...base64Bytes(encoded)]).toEqual([...Buffer.from('user:pässword')])
  })

  it('writes and reads base64url without padding, as Buffer does', () => {
    for (const text of ['o:0', 'o:12345', 'o:1?>']) {
      expect(asciiToBase64Url(text)).toBe(Buffer.from(text).toString('base64url'))
      expect(base64UrlToAscii(asciiToBase64Url(text))).toBe(text)
    }
  })

  it('tells what is not base64url', () => {
    expect(base64UrlToAscii('a+b/')).toBeUndefined()
    expect(base64UrlToAscii('abcde')).toBeUndefined()
    expect(base64UrlToAscii('%%%')).toBeUndefined()
  })
})
