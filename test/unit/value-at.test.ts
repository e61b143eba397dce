import { describe, expect, it } from 'vitest'
import { valueAt } from '../../src/internal/value-at.js'

describe('valueAt', () => {
  it('gives the root for an empty path', () => {
    const root = { a: 1 }
    expect(valueAt(root, [])).toBe(root)
  })

  it('follows property names and array indexes', () => {
    expect(valueAt({ pets: [{ name: 'Rex' }, { name: 'Tom' }] }, ['pets', '1', 'name'])).toBe('Tom')
  })

  it('gives undefined where the path leaves objects or finds nothing', () => {
    expect(valueAt({ a: 'text' }, ['a', 'length', 'x'])).toBeUndefined()
    expect(valueAt({ a: null }, ['a', 'b'])).toBeUndefined()
    expect(valueAt({ a: {} }, ['a', 'missing'])).toBeUndefined()
  })
})
