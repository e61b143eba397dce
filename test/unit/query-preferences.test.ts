/** Prism's query controls (`src/responses/query-preferences.ts`, #13): read, set beside Prefer, taken out of the query. */
import { describe, expect, it } from 'vitest'
import { parsePrefer } from '../../src/responses/prefer.js'
import {
  readQueryPreferences,
  withQueryPreferences,
  withoutQueryControls,
} from '../../src/responses/query-preferences.js'
import type { RequestData } from '../../src/common/request.js'

describe('readQueryPreferences', () => {
  it('reads __code, __example and __dynamic as Prefer’s code, example and dynamic, marked as from the query', () => {
    expect(readQueryPreferences('__code=404&__example=gone&__dynamic=false')?.preferences).toEqual({
      from: 'query',
      code: 404,
      example: 'gone',
      dynamic: false,
    })
  })

  it('is undefined for a query with "__" but no control in it', () => {
    expect(readQueryPreferences('q=a__b&__seed=1&x__code=1')).toBeUndefined()
  })

  it('keeps every other pair as sent, in order, and takes every copy of a control out', () => {
    expect(readQueryPreferences('a=1&__code=404&b=%20+&__code=200&c')?.rest).toBe('a=1&b=%20+&c')
    expect(readQueryPreferences('__dynamic=true')?.rest).toBe('')
  })

  it('keeps a code that is not a status as NaN, so that it is refused as Prefer’s is', () => {
    for (const value of ['abc', '600', '', '20'])
      expect(readQueryPreferences(`__code=${value}`)?.preferences.code, value).toBeNaN()
    expect(readQueryPreferences('__code')?.preferences.code).toBeNaN()
  })

  it('decodes an example name as URLSearchParams does: + is a space, bad percent-encoding kept', () => {
    expect(readQueryPreferences('__example=duplicate%2Did')?.preferences.example).toBe('duplicate-id')
    expect(readQueryPreferences('__example=two+words')?.preferences.example).toBe('two words')
    expect(readQueryPreferences('__example=100%')?.preferences.example).toBe('100%')
  })

  it('reads __dynamic as true or false in any case, and anything else as a problem naming it', () => {
    expect(readQueryPreferences('__dynamic=TRUE')?.preferences.dynamic).toBe(true)
    const maybe = readQueryPreferences('__dynamic=maybe')?.preferences
    expect(maybe?.dynamic).toBeUndefined()
    expect(maybe?.problem).toBe('__dynamic= must be true or false, got "maybe".')
  })

  it('takes the first of a repeated control, as RFC 7240 §2 asks of a repeated preference', () => {
    expect(
      readQueryPreferences('__code=404&__code=200&__example=a&__example=b&__dynamic=true&__dynamic=maybe')?.preferences,
    ).toEqual({ from: 'query', code: 404, example: 'a', dynamic: true })
  })

  it('matches names as written: a percent-encoded %5F%5Fcode is no control', () => {
    expect(readQueryPreferences('%5F%5Fcode=404&a__=1')).toBeUndefined()
  })
})

describe('withQueryPreferences', () => {
  const query = readQueryPreferences('__code=404&__dynamic=maybe')!

  it('leaves Prefer alone without query controls', () => {
    const prefer = parsePrefer('code=200')
    expect(withQueryPreferences(prefer, undefined)).toBe(prefer)
  })

  it('lets a Prefer naming any of code, example or dynamic win over all three controls', () => {
    for (const header of ['code=200', 'example=fern', 'dynamic=true']) {
      const prefer = parsePrefer(header)
      expect(withQueryPreferences(prefer, query), header).toBe(prefer)
    }
  })

  it('adds the controls to a Prefer that asks only for a delay or a validation mode', () => {
    expect(withQueryPreferences(parsePrefer('delay=10, validate=report'), query)).toEqual({
      delay: 10,
      validate: 'report',
      from: 'query',
      code: 404,
      problem: '__dynamic= must be true or false, got "maybe".',
    })
    expect(withQueryPreferences(parsePrefer(undefined), query)).toEqual(query.preferences)
  })
})

describe('withoutQueryControls', () => {
  const request: RequestData = {
    method: 'GET',
    path: '/items',
    header: (name) => (name === 'x-id' ? '7' : undefined),
    headerSource: { 'x-id': '7' },
    query: () => new URLSearchParams('__code=404&q=fern'),
    rawQuery: '__code=404&q=fern',
    cookie: (name) => (name === 'session' ? 's1' : undefined),
  }

  it('shows the request with the query the controls left, and everything else as it is', () => {
    const seen = withoutQueryControls(request, readQueryPreferences(request.rawQuery)!)
    expect(seen.rawQuery).toBe('q=fern')
    expect([...seen.query().keys()]).toEqual(['q'])
    expect(seen.query()).toBe(seen.query())
    expect([seen.method, seen.path, seen.header('x-id'), seen.cookie('session'), seen.headerSource]).toEqual([
      'GET',
      '/items',
      '7',
      's1',
      { 'x-id': '7' },
    ])
  })
})
