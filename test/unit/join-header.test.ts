import { describe, expect, it } from 'vitest'
import { joinHeader } from '../../src/internal/join-header.js'

describe('joinHeader', () => {
  it('gives a single value as it is', () => {
    expect(joinHeader('text/plain')).toBe('text/plain')
    expect(joinHeader('')).toBe('')
  })

  it('joins a repeated header with a comma and a space', () => {
    expect(joinHeader(['a=1', 'b=2', 'c=3'])).toBe('a=1, b=2, c=3')
  })

  it('gives undefined for a header that is absent', () => {
    expect(joinHeader(undefined)).toBeUndefined()
  })
})
