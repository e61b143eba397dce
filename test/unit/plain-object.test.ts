import { describe, expect, it } from 'vitest'
import { isPlainObject } from '../../src/internal/plain-object.js'

describe('isPlainObject', () => {
  it('takes a JSON object, empty or not, and one without a prototype', () => {
    expect(isPlainObject({})).toBe(true)
    expect(isPlainObject({ type: 'object' })).toBe(true)
    expect(isPlainObject(Object.create(null))).toBe(true)
  })

  it('refuses null, arrays and every other JSON value', () => {
    for (const value of [null, undefined, [], [{}], 'text', 0, true]) expect(isPlainObject(value)).toBe(false)
  })
})
