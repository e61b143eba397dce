import { describe, expect, it } from 'vitest'
import { parsePrefer } from '../../src/responses/prefer.js'

describe('parsePrefer', () => {
  it('asks for nothing without a header', () => {
    expect(parsePrefer(undefined)).toEqual({})
    expect(parsePrefer('')).toEqual({})
  })

  it('reads a status code', () => {
    expect(parsePrefer('code=400')).toEqual({ code: 400 })
  })

  it('reads code, example and dynamic together in Prism’s comma syntax', () => {
    expect(parsePrefer('code=400, example=duplicate-id, dynamic=true')).toEqual({
      code: 400,
      example: 'duplicate-id',
      dynamic: true,
    })
  })

  it('reads preferences separated by semicolons as well', () => {
    expect(parsePrefer('code=201; example=fern')).toEqual({ code: 201, example: 'fern' })
  })

  it('reads preference names case-insensitively', () => {
    expect(parsePrefer('Code=404, EXAMPLE=missing')).toEqual({ code: 404, example: 'missing' })
  })

  it('keeps the case of an example name', () => {
    expect(parsePrefer('example=Duplicate-ID').example).toBe('Duplicate-ID')
  })

  it('allows white space around the equals sign', () => {
    // RFC 7240 §2: preference = token [ BWS "=" BWS word ]
    expect(parsePrefer('code = 404 ,example = x')).toEqual({ code: 404, example: 'x' })
  })

  it('unquotes a quoted value', () => {
    expect(parsePrefer('code="422", example="duplicate-id"')).toEqual({ code: 422, example: 'duplicate-id' })
  })

  it('keeps a code that is not an HTTP status as NaN', () => {
    for (const value of ['abc', '600', '99', '4000', '40x', '']) {
      expect(parsePrefer(`code=${value}`).code, value).toBeNaN()
    }
  })

  it('reads dynamic as true only for the word true, in any case', () => {
    expect(parsePrefer('dynamic=TRUE').dynamic).toBe(true)
    expect(parsePrefer('dynamic=false').dynamic).toBe(false)
    expect(parsePrefer('dynamic=yes').dynamic).toBe(false)
  })

  it('ignores preferences it does not know, as RFC 7240 asks', () => {
    expect(parsePrefer('return=minimal, respond-async, wait=10, handling=strict')).toEqual({})
  })

  it('ignores a bare name without a value', () => {
    expect(parsePrefer('code, example')).toEqual({})
  })

  it('takes the first of a repeated preference, as RFC 7240 §2 asks', () => {
    expect(parsePrefer('code=400, code=200')).toEqual({ code: 400 })
    expect(parsePrefer('example=a, example=b').example).toBe('a')
  })

  it('reads validate= as a validation mode, true and false as strict and off, in any case (#13)', () => {
    expect(parsePrefer('validate=report').validate).toBe('report')
    expect(parsePrefer('validate=OFF').validate).toBe('off')
    expect(parsePrefer('validate=false').validate).toBe('off')
    expect(parsePrefer('validate=true').validate).toBe('strict')
    expect(parsePrefer('validate="strict", code=404')).toEqual({ validate: 'strict', code: 404 })
  })

  it('keeps a validate= it does not know as null, so that the caller can refuse it (#13)', () => {
    for (const value of ['lenient', '', 'constructor', '__proto__'])
      expect(parsePrefer(`validate=${value}`).validate, value).toBeNull()
  })
})
