import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type ItemFraming, type StreamItem, createItemReader } from '../../src/proxy/read-upstream-stream.js'
import { eventFieldsOf } from '../../src/internal/event-stream.js'

/** An event's data, as the proxy and stream fixtures read it. */
const eventDataOf = (event: string) => eventFieldsOf(event).data

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** Reads `text` cut into chunks at `cuts` (byte offsets); every item with its bytes as text. */
function readItems(framing: ItemFraming, text: string, cuts: number[] = [], max = 1024) {
  const bytes = encoder.encode(text)
  const reader = createItemReader(framing, max)
  const items: StreamItem[] = []
  let from = 0
  for (const cut of [...new Set(cuts)].sort((a, b) => a - b).concat(bytes.byteLength)) {
    const read = reader.read(bytes.slice(from, cut))
    if (read === 'too long') return 'too long'
    items.push(...read)
    from = cut
  }
  items.push(...reader.end())
  return items.map((item) => ({ bytes: decoder.decode(item.bytes), text: item.text }))
}

describe('createItemReader (#31 §2)', () => {
  it('splits JSON Lines at each LF; a blank line carries no item, a last line without LF is one', () => {
    expect(readItems('jsonl', '{"n":1}\n\n {"n":2} \r\n{"n":3}')).toEqual([
      { bytes: '{"n":1}\n', text: '{"n":1}' },
      { bytes: '\n', text: undefined },
      { bytes: ' {"n":2} \r\n', text: '{"n":2}' },
      { bytes: '{"n":3}', text: '{"n":3}' },
    ])
  })

  it('splits events at a blank line, whatever ends its lines, and joins their data lines', () => {
    expect(readItems('sse', 'data: a\n\nid: 2\r\nevent: x\r\ndata: b\r\ndata:c\r\n\r\n: ping\r\rdata\n\n')).toEqual([
      { bytes: 'data: a\n\n', text: 'a' },
      { bytes: 'id: 2\r\nevent: x\r\ndata: b\r\ndata:c\r\n\r\n', text: 'b\nc' },
      { bytes: ': ping\r\r', text: undefined },
      { bytes: 'data\n\n', text: '' },
    ])
  })

  it('an event the stream never ended passes as bytes, no item', () => {
    expect(readItems('sse', 'data: a\n\ndata: b\n')).toEqual([
      { bytes: 'data: a\n\n', text: 'a' },
      { bytes: 'data: b\n', text: undefined },
    ])
  })

  it('ends a JSON text sequence item at an LF that ends a whole text, or at the next RS', () => {
    const items = readItems('json-seq', '\x1e{"a":\n1}\n\x1e2\x1e3\n\x1e"four"')
    expect(items).toEqual([
      { bytes: '\x1e{"a":\n1}\n', text: '{"a":\n1}' },
      { bytes: '\x1e2', text: '2' },
      { bytes: '\x1e3\n', text: '3' },
      { bytes: '\x1e"four"', text: '"four"' },
    ])
  })

  it('says too long once the item still coming passes its limit, and holds no more', () => {
    expect(readItems('jsonl', `{"n":1}\n${'x'.repeat(100)}`, [50], 64)).toBe('too long')
    expect(readItems('jsonl', `{"n":1}\n${'x'.repeat(60)}\n`, [30], 64)).toHaveLength(2)
  })

  it('finds the same items, their bytes end to end the input, however the input is cut into chunks', () => {
    const samples: Array<[ItemFraming, string]> = [
      ['jsonl', '{"n":1}\n\n{"é":"ü"}\r\n[1,\n2]'],
      ['sse', ': hi\n\ndata: {"t":"é"}\r\n\r\nid: 1\rdata: 2\r\rdata: [DONE]\n\n'],
      ['json-seq', '\x1e{"a":\n1}\n\x1e2\x1e\x1e3\n\n\x1e4'],
    ]
    for (const [framing, text] of samples) {
      const whole = readItems(framing, text)
      const size = encoder.encode(text).byteLength
      fc.assert(
        fc.property(fc.array(fc.integer({ min: 1, max: size - 1 }), { maxLength: 8 }), (cuts) => {
          const items = readItems(framing, text, cuts)
          expect(items).not.toBe('too long')
          const read = items as Array<{ bytes: string; text?: string }>
          expect(read.map((item) => item.bytes).join('')).toBe(text)
          // A CRLF cut between its CR and LF ends its event at the CR: the LF goes with the next bytes.
          const texts = (list: typeof read) => list.flatMap((item) => (item.text === undefined ? [] : [item.text]))
          expect(texts(read)).toEqual(texts(whole as typeof read))
        }),
      )
    }
  })
})

describe('eventDataOf', () => {
  it('reads the data of an event, one leading space dropped; none without a data field', () => {
    expect(eventDataOf('data: [DONE]\n\n')).toBe('[DONE]')
    expect(eventDataOf('event: x\ndata:  two\ndata\n')).toBe(' two\n')
    expect(eventDataOf(': comment\nretry: 10\n')).toBeUndefined()
  })
})
