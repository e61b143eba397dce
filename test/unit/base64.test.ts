import { describe, expect, it } from 'vitest'
import { BASE64 } from '../../src/internal/base64.js'

describe('BASE64', () => {
  it('accepts padded standard base64, and the empty string', () => {
    for (const text of ['', 'YQ==', 'YWI=', 'YWJj', 'dXNlcjpwYXNz', '+/+/']) expect(BASE64.test(text)).toBe(true)
  })

  it('refuses missing padding, the URL-safe alphabet, whitespace and stray characters', () => {
    for (const text of ['YQ', 'YWI', 'YW=I', 'a-_b', 'YW Jj', 'YWJj\n', 'YQ===', '!!!!'])
      expect(BASE64.test(text)).toBe(false)
  })

  it('agrees with Node on what it can decode and encode again', () => {
    for (const text of ['', 'a', 'ab', 'abc', 'user:päss'])
      expect(BASE64.test(Buffer.from(text).toString('base64'))).toBe(true)
  })
})
