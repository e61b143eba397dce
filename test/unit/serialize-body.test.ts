/** Writing bodies for their media type (#7 §3). */
import { beforeAll, describe, expect, it } from 'vitest'
import { kindOf, loadXmlSupport, serializeBody } from '../../src/responses/serialize-body.js'

beforeAll(loadXmlSupport)

describe('kindOf', () => {
  it('reads +json and +xml suffixes', () => {
    expect([
      kindOf('application/vnd.api+json'),
      kindOf('application/atom+xml'),
      kindOf('text/xml'),
      kindOf('text/csv'),
    ]).toEqual(['json', 'xml', 'xml', 'text'])
  })
})

describe('serializeBody', () => {
  it('writes an object as XML under its root element, escaping text', () => {
    expect(serializeBody('xml', { id: 1, name: 'a & b' }, { root: 'pet' })).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><pet><id>1</id><name>a &amp; b</name></pet>',
    )
  })

  it('writes an array as XML with one item element per entry', () => {
    expect(serializeBody('xml', [{ id: 1 }, { id: 2 }], { root: 'pets', item: 'pet' })).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><pets><pet><id>1</id></pet><pet><id>2</id></pet></pets>',
    )
  })

  it('serves an XML example written as a string as the document itself', () => {
    expect(serializeBody('xml', '<pet/>')).toBe('<pet/>')
  })

  it('writes a number as text', () => {
    expect(serializeBody('text', 42)).toBe('42')
  })

  it('refuses to write an object as text', () => {
    expect(serializeBody('text', { a: 1 })).toBeUndefined()
  })
})
