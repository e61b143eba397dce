/** Keys and values of stateful records (`src/state/record-values.ts`, #15). */
import { LosslessNumber } from 'lossless-json'
import { describe, expect, it } from 'vitest'
import { assignId, keyOf, mergePatch, pathKeyOf } from '../../src/state/record-values.js'

describe('record keys', () => {
  it('names one integer by one key, however the path writes it', () => {
    for (const written of ['7', '7.0', '7e0', '70e-1']) expect(pathKeyOf(written, 'integer')).toBe('7')
    expect(pathKeyOf('-0', 'integer')).toBe('0')
    expect(pathKeyOf('9223372036854775807', 'integer')).toBe('9223372036854775807')
  })

  it('names a uuid by its lower-case form, from the path and from a body', () => {
    const upper = 'A1B2C3D4-0000-4000-8000-00000000000F'
    expect(pathKeyOf(upper, 'uuid')).toBe(upper.toLowerCase())
    expect(keyOf(upper, 'uuid')).toBe(upper.toLowerCase())
    expect(keyOf(upper, 'string')).toBe(upper)
  })

  it('keeps an exact integer beyond 2^53 as its digits', () => {
    expect(keyOf(new LosslessNumber('9007199254740993'), 'integer')).toBe('9007199254740993')
    expect(keyOf(Number.NaN, 'integer')).toBeUndefined()
    expect(keyOf({}, 'string')).toBeUndefined()
  })

  it('assigns the next integer after the highest, a uuid, or a short string not yet taken', () => {
    expect(
      assignId(
        'integer',
        new Map([
          ['3', {}],
          ['10', {}],
          ['x', {}],
        ]),
      ),
    ).toBe(11)
    expect(assignId('integer', new Map())).toBe(1)
    expect(assignId('uuid', new Map())).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(assignId('string', new Map([['r2', {}]]))).toBe('r3')
    expect(
      assignId(
        'string',
        new Map([
          ['r1', {}],
          ['r3', {}],
        ]),
      ),
    ).toBe('r4')
  })
})

describe('JSON merge patch (RFC 7386)', () => {
  it('merges objects member by member, removes with null, replaces anything else', () => {
    expect(mergePatch({ a: 1, b: { c: 2, d: 3 } }, { a: null, b: { c: 9 }, e: [1] })).toEqual({
      b: { c: 9, d: 3 },
      e: [1],
    })
    expect(mergePatch({ a: 1 }, [1, 2])).toEqual([1, 2])
    expect(mergePatch([1], { a: 1 })).toEqual({ a: 1 })
  })
})
