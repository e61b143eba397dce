import { describe, expect, it } from 'vitest'
import {
  isAmbiguousInt64,
  isExactInt64Literal,
  isInt64Number,
  jsonLiterals,
  rawLiterals,
} from '../../src/validation/exact-integers.js'

describe('isExactInt64Literal', () => {
  it('accepts the largest int64 written exactly', () => {
    expect(isExactInt64Literal('9223372036854775807')).toBe(true)
  })

  it('refuses one more than the largest int64', () => {
    expect(isExactInt64Literal('9223372036854775808')).toBe(false)
  })

  it('accepts the smallest int64 written exactly', () => {
    expect(isExactInt64Literal('-9223372036854775808')).toBe(true)
  })

  it('refuses one less than the smallest int64', () => {
    expect(isExactInt64Literal('-9223372036854775809')).toBe(false)
  })

  it('accepts a whole number written with a zero fraction', () => {
    expect(isExactInt64Literal('9223372036854775807.000')).toBe(true)
  })

  it('refuses a fraction just above the largest int64', () => {
    expect(isExactInt64Literal('9223372036854775807.5')).toBe(false)
  })

  it('accepts a whole number written with an exponent', () => {
    expect(isExactInt64Literal('9.223372036854775807e18')).toBe(true)
    expect(isExactInt64Literal('9.223372036854775807E+18')).toBe(true)
  })

  it('refuses an exponent form one past the edge', () => {
    expect(isExactInt64Literal('9.223372036854775808e18')).toBe(false)
  })

  it('accepts a negative exponent that still gives a whole number', () => {
    expect(isExactInt64Literal('1200e-2')).toBe(true)
  })

  it('refuses a negative exponent that leaves a fraction', () => {
    expect(isExactInt64Literal('15e-1')).toBe(false)
  })

  it('refuses huge exponents either way without building the number', () => {
    expect(isExactInt64Literal('1e400')).toBe(false)
    expect(isExactInt64Literal('-1e400')).toBe(false)
    expect(isExactInt64Literal('1e999999999')).toBe(false)
  })

  it('refuses text that is not a JSON number', () => {
    for (const literal of ['', 'abc', '0x10', '+1', '1.', '.5', 'Infinity', '1 ']) {
      expect(isExactInt64Literal(literal), literal).toBe(false)
    }
  })
})

describe('isAmbiguousInt64 and isInt64Number', () => {
  it('calls only plus and minus 2^63 ambiguous', () => {
    expect(isAmbiguousInt64(2 ** 63)).toBe(true)
    expect(isAmbiguousInt64(-(2 ** 63))).toBe(true)
    expect(isAmbiguousInt64(2 ** 63 - 1024)).toBe(false)
    expect(isAmbiguousInt64(2 ** 63 + 2048)).toBe(false)
  })

  it('accepts floats up to plus and minus 2^63 and refuses the next ones', () => {
    expect(isInt64Number(2 ** 63)).toBe(true)
    expect(isInt64Number(-(2 ** 63))).toBe(true)
    expect(isInt64Number(2 ** 63 + 2048)).toBe(false)
    expect(isInt64Number(-(2 ** 63) - 2048)).toBe(false)
  })

  it('refuses fractions, infinities and NaN', () => {
    for (const value of [1.5, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NaN]) {
      expect(isInt64Number(value), String(value)).toBe(false)
    }
  })
})

describe('jsonLiterals', () => {
  it('gives a number literal as written in the JSON text', () => {
    const literals = jsonLiterals('{"id": 9223372036854775808, "name": "a"}')
    expect(literals.literalAt('/id')).toBe('9223372036854775808')
  })

  it('finds literals inside arrays and nested objects', () => {
    const literals = jsonLiterals('{"items": [{"id": 1}, {"id": 1.0e19}]}')
    expect(literals.literalAt('/items/1/id')).toBe('1.0e19')
  })

  it('decodes escaped pointer tokens', () => {
    const literals = jsonLiterals('{"a/b": {"c~d": 7}}')
    expect(literals.literalAt('/a~1b/c~0d')).toBe('7')
  })

  it('gives the root literal for the empty pointer', () => {
    expect(jsonLiterals('-9223372036854775809').literalAt('')).toBe('-9223372036854775809')
  })

  it('gives nothing for a string, a missing path or a path through a number', () => {
    const literals = jsonLiterals('{"id": "9223372036854775808", "n": 1}')
    expect(literals.literalAt('/id')).toBeUndefined()
    expect(literals.literalAt('/missing')).toBeUndefined()
    expect(literals.literalAt('/n/deeper')).toBeUndefined()
  })

  it('answers a text it cannot parse with a literal that is no int64, so the edge value is refused', () => {
    const literal = jsonLiterals('{not json').literalAt('/x')
    expect(literal).toBeDefined()
    expect(isExactInt64Literal(literal!)).toBe(false)
  })
})

describe('rawLiterals', () => {
  it('gives parameter strings as they came', () => {
    const literals = rawLiterals({ id: '9223372036854775808', ids: ['1', '9223372036854775807'] })
    expect(literals.literalAt('/id')).toBe('9223372036854775808')
    expect(literals.literalAt('/ids/1')).toBe('9223372036854775807')
  })

  it('gives nothing where the raw value is not a string', () => {
    expect(rawLiterals({ ids: ['1'] }).literalAt('/ids')).toBeUndefined()
    expect(rawLiterals({}).literalAt('/id')).toBeUndefined()
  })
})

describe('jsonLiterals with repeated keys', () => {
  it('gives the literal of the last of repeated keys, as JSON.parse keeps the last value', () => {
    const text = '{"id": 1, "id": 9223372036854775808}'
    expect(JSON.parse(text).id).toBe(2 ** 63)
    expect(jsonLiterals(text).literalAt('/id')).toBe('9223372036854775808')
  })

  it('reads a literal beside another repeated key', () => {
    const literals = jsonLiterals('{"name": "a", "name": "b", "id": 9223372036854775807}')
    expect(literals.literalAt('/id')).toBe('9223372036854775807')
  })
})
