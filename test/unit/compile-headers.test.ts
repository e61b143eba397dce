/**
 * Response headers at start-up (`src/responses/compile-headers.ts` and `write-header-value.ts`, #13):
 * how a value is written in the `simple` style, made fit to send, and which declared headers are sent.
 */
import { describe, expect, it } from 'vitest'
import { compileHeaders } from '../../src/responses/compile-headers.js'
import { toHeaderText, writeHeaderValue } from '../../src/responses/write-header-value.js'
import { ajvFor, documentWithResponses, operationsOf } from '../support/builders.js'
import { silentLogger } from '../../src/common/log.js'

const simple = { explode: false }
const exploded = { explode: true }

describe('writeHeaderValue', () => {
  it('writes scalars as text and null as nothing', () => {
    expect(writeHeaderValue('abc', simple)).toBe('abc')
    expect(writeHeaderValue(5, simple)).toBe('5')
    expect(writeHeaderValue(true, simple)).toBe('true')
    expect(writeHeaderValue(null, simple)).toBe('')
  })

  it('joins an array with commas, exploded or not', () => {
    expect(writeHeaderValue([3, 4, 5], simple)).toBe('3,4,5')
    expect(writeHeaderValue([3, 4, 5], exploded)).toBe('3,4,5')
  })

  it('writes an object as k,v pairs, or k=v when exploded (OpenAPI "Style Examples")', () => {
    const value = { R: 100, G: 200, B: 150 }
    expect(writeHeaderValue(value, simple)).toBe('R,100,G,200,B,150')
    expect(writeHeaderValue(value, exploded)).toBe('R=100,G=200,B=150')
  })

  it('writes a nested value as JSON, where the style table stops', () => {
    expect(writeHeaderValue([{ a: 1 }], simple)).toBe('{"a":1}')
  })

  it('writes a header declared with JSON content as JSON text, and a text one as text', () => {
    expect(writeHeaderValue({ cached: true }, { explode: false, mediaType: 'application/json' })).toBe(
      '{"cached":true}',
    )
    expect(writeHeaderValue('abc', { explode: false, mediaType: 'application/json' })).toBe('"abc"')
    expect(writeHeaderValue('abc', { explode: false, mediaType: 'text/plain' })).toBe('abc')
  })
})

describe('toHeaderText', () => {
  it('keeps visible ASCII, spaces and tabs as they are', () => {
    expect(toHeaderText('<https://x/?page=2>; rel="next"')).toBe('<https://x/?page=2>; rel="next"')
  })

  it('turns a line break and the white space around it into one space, as a folded line is read', () => {
    expect(toHeaderText('first\r\n   second\nthird')).toBe('first second third')
  })

  it('drops other controls, percent-encodes what is not ASCII, and trims the ends', () => {
    expect(toHeaderText(' a\u0000b Köln ')).toBe('ab K%C3%B6ln')
  })
})

function compiledHeadersOf(headers: Record<string, unknown>) {
  const document = documentWithResponses({ '200': { description: 'ok', headers } })
  const warnings: string[] = []
  const logger = { info() {}, warn: (message: string) => warnings.push(message), error() {} }
  const [operation] = operationsOf(document)
  const compiled = compileHeaders(
    { document, ajv: ajvFor(document), logger },
    'addThing 200',
    operation!.responses[0]!.headers,
  )
  return { ...compiled, warnings }
}

describe('compileHeaders', () => {
  it('sends nothing, and reports nothing, for a response that declares no header', () => {
    expect(compiledHeadersOf({})).toEqual({ warnings: [] })
  })

  it('reads a header without a schema as a string', () => {
    expect(compiledHeadersOf({ 'X-Note': { description: 'no schema' } }).headers).toEqual({ 'x-note': 'string' })
  })

  it('takes the first of a header’s named examples, a $ref followed', () => {
    const document = documentWithResponses({
      '200': {
        description: 'ok',
        headers: {
          'X-Id': {
            schema: { type: 'string' },
            examples: { one: { $ref: '#/components/examples/one' }, two: { value: 'b' } },
          },
        },
      },
    })
    document.components.examples = { one: { value: 'a' } }
    const [operation] = operationsOf(document)
    expect(
      compileHeaders({ document, ajv: ajvFor(document), logger: silentLogger }, 'l', operation!.responses[0]!.headers)
        .headers,
    ).toEqual({ 'x-id': 'a' })
  })

  it('coerces a value as a header parameter is read before checking it: "5" is an integer, "1,2" an array', () => {
    const compiled = compiledHeadersOf({
      'X-Count': { schema: { type: 'integer', maximum: 9 }, example: 5 },
      'X-List': { schema: { type: 'array', items: { type: 'integer' }, maxItems: 2 }, example: [1, 2] },
    })
    expect(compiled.headers).toEqual({ 'x-count': '5', 'x-list': '1,2' })
    expect(compiled.violations).toBeUndefined()
  })

  it('passes over, with a warning, a header whose name HTTP cannot carry', () => {
    const compiled = compiledHeadersOf({
      'X Bad': { schema: { type: 'string' } },
      'X-Good': { schema: { type: 'string' }, example: 'ok' },
    })
    expect(compiled.headers).toEqual({ 'x-good': 'ok' })
    expect(compiled.warnings).toEqual([expect.stringContaining('the header "X Bad" is not sent')])
  })

  it('passes over the headers the server writes, without a warning', () => {
    const compiled = compiledHeadersOf({
      'Transfer-Encoding': { schema: { type: 'string' } },
      Connection: { schema: { type: 'string' } },
      'Content-Encoding': { schema: { type: 'string' }, example: 'gzip' },
    })
    expect(compiled).toEqual({ warnings: [] })
  })

  it('warns of a required Set-Cookie without a value, and sends none', () => {
    const compiled = compiledHeadersOf({ 'Set-Cookie': { required: true, schema: { type: 'string' } } })
    expect(compiled.headers).toBeUndefined()
    expect(compiled.warnings).toEqual([expect.stringContaining('the required header Set-Cookie is not sent')])
  })

  it('sends a required header that no made-up value fits, and reports it', () => {
    const compiled = compiledHeadersOf({
      'X-Odd': { required: true, schema: { type: 'string', minLength: 5, maxLength: 2 } },
    })
    expect(compiled.headers).toHaveProperty('x-odd')
    expect(compiled.violations).toEqual([{ path: 'header["x-odd"]', message: expect.stringContaining('characters') }])
  })
})
