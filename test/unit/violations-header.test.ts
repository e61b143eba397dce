/** `X-Mock-Violations` (`src/validation/violations-header.ts`, #13): where each violation is, as a JSON pointer, in a bounded, ASCII header. */
import { describe, expect, it } from 'vitest'
import {
  MAX_VIOLATIONS_HEADER,
  locateViolation,
  renderViolationsHeader,
} from '../../src/validation/violations-header.js'

describe('locateViolation', () => {
  it.each([
    ['body', 'request.body', ''],
    ['body.pot.size', 'request.body', '/pot/size'],
    ['body[0].tags[12]', 'request.body', '/0/tags/12'],
    ['body["a.b"]["c/d~e"]', 'request.body', '/a.b/c~1d~0e'],
    ['query.limit', 'request.query', '/limit'],
    ['query.flags.verbose', 'request.query', '/flags/verbose'],
    ['header["x-id"]', 'request.header', '/x-id'],
    ['path.id', 'request.path', '/id'],
    ['cookie.session', 'request.cookie', '/session'],
  ])('reads %s as %s %s', (path, location, pointer) => {
    expect(locateViolation('request', { path, message: 'm' })).toEqual({ location, pointer, message: 'm' })
  })

  it('names the response side for what an answer breaks', () => {
    expect(locateViolation('response', { path: 'header.location', message: 'm' })).toEqual({
      location: 'response.header',
      pointer: '/location',
      message: 'm',
    })
    expect(locateViolation('response', { path: 'status', message: 'm' })).toEqual({
      location: 'response.status',
      pointer: '',
      message: 'm',
    })
  })

  it('keeps what it cannot read, a cut path for one, as the last token', () => {
    expect(locateViolation('request', { path: 'body.a["unterminated…', message: 'm' }).pointer).toBe(
      '/a/["unterminated…',
    )
  })
})

describe('renderViolationsHeader', () => {
  it('lists request violations first, then the response’s, as compact JSON', () => {
    const header = renderViolationsHeader(
      [{ path: 'query.limit', message: 'must be >= 1' }],
      [{ path: 'body.id', message: 'is required' }],
    )
    expect(header).toBe(
      '[{"location":"request.query","pointer":"/limit","message":"must be >= 1"},{"location":"response.body","pointer":"/id","message":"is required"}]',
    )
  })

  it('escapes every character outside visible ASCII, so the value is one header line and still JSON', () => {
    const header = renderViolationsHeader([{ path: 'body["café\\n🌿"]', message: 'must be ☃\u007f' }])
    expect(header).toMatch(/^[\x20-\x7e]+$/)
    expect(JSON.parse(header)).toEqual([{ location: 'request.body', pointer: '/café\n🌿', message: 'must be ☃\u007f' }])
  })

  it('stays within its bound, whole entries only, and says how many it left out', () => {
    const many = Array.from({ length: 500 }, (_, i) => ({ path: `query.flag${i}`, message: 'must be a boolean' }))
    const header = renderViolationsHeader(many, [{ path: 'body', message: 'x'.repeat(600) }])
    expect(header.length).toBeLessThanOrEqual(MAX_VIOLATIONS_HEADER)
    const listed = JSON.parse(header) as Array<{ location: string; message: string }>
    const shown = listed.length - 1
    expect(listed.at(-1)).toEqual({
      location: '',
      pointer: '',
      message: `${501 - shown} more violations; the journal lists them all`,
    })
    expect(listed.slice(0, shown).every((v) => v.location === 'request.query')).toBe(true)
  })

  it('is an empty list for no violation', () => {
    expect(renderViolationsHeader()).toBe('[]')
  })
})
