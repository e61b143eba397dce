/** Content negotiation over declared media types (#7 §3). */
import { describe, expect, it } from 'vitest'
import { negotiateMediaType, parseAccept, rankMediaTypes } from '../../src/responses/negotiate.js'

const declared = ['application/json', 'application/xml', 'text/plain'].map((contentType) => ({ contentType }))
const best = (accept: string | undefined) => negotiateMediaType(declared, accept)?.contentType

describe('negotiateMediaType', () => {
  it('serves the first declared media type without an Accept header', () => {
    expect(best(undefined)).toBe('application/json')
  })

  it('serves the first declared media type for an empty Accept header', () => {
    expect(best('')).toBe('application/json')
  })

  it('matches an exact media type case-insensitively', () => {
    expect(best('Application/XML')).toBe('application/xml')
  })

  it('matches a type wildcard', () => {
    expect(best('text/*')).toBe('text/plain')
  })

  it('prefers the highest q-value', () => {
    expect(best('application/json;q=0.2, application/xml;q=0.8')).toBe('application/xml')
  })

  it('lets a more specific range set the weight of a media type', () => {
    expect(best('*/*;q=0.9, application/json;q=0.1')).toBe('application/xml')
  })

  it('excludes a media type with q=0', () => {
    expect(rankMediaTypes(declared, 'application/json;q=0, */*').map((m) => m.contentType)).toEqual([
      'application/xml',
      'text/plain',
    ])
  })

  it('returns nothing when no declared media type is acceptable', () => {
    expect(best('image/png')).toBeUndefined()
  })

  it('serves a +json media type to a client asking for application/json', () => {
    expect(negotiateMediaType([{ contentType: 'application/problem+json' }], 'application/json')?.contentType).toBe(
      'application/problem+json',
    )
  })

  it('does not serve application/json to a client asking only for a +json type', () => {
    expect(negotiateMediaType([{ contentType: 'application/json' }], 'application/hal+json')).toBeUndefined()
  })

  it('ignores media type parameters of the declared type', () => {
    expect(negotiateMediaType([{ contentType: 'text/plain; charset=utf-8' }], 'text/plain')?.contentType).toBe(
      'text/plain; charset=utf-8',
    )
  })
})

describe('parseAccept', () => {
  it('reads ranges, weights and order, skipping malformed entries', () => {
    expect(parseAccept('text/html, bogus, application/xml;q=0.5')).toEqual([
      { type: 'text', subtype: 'html', q: 1, order: 0 },
      { type: 'application', subtype: 'xml', q: 0.5, order: 2 },
    ])
  })

  it('counts an unreadable weight as 1', () => {
    expect(parseAccept('text/plain;q=high')[0]!.q).toBe(1)
  })
})
