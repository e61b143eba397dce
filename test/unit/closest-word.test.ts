import { describe, expect, it } from 'vitest'
import { closestWord, editDistance } from '../../src/internal/closest-word.js'

describe('editDistance', () => {
  it.each([
    ['', '', 0],
    ['port', 'port', 0],
    ['prot', 'port', 1],
    ['port', 'por', 1],
    ['port', 'sport', 1],
    ['kitten', 'sitting', 3],
    ['', 'abc', 3],
  ])('%s → %s is %i', (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance)
    expect(editDistance(b, a)).toBe(distance)
  })
})

describe('closestWord', () => {
  const flags = ['spec', 'port', 'host', 'dynamic', 'verboseLevel', 'ignoreExamples']

  it('finds a word one transposition or one letter away', () => {
    expect(closestWord('prot', flags)).toBe('port')
    expect(closestWord('hots', flags)).toBe('host')
    expect(closestWord('dynamc', flags)).toBe('dynamic')
  })

  it('ignores case, dashes and underscores', () => {
    expect(closestWord('verbose-level', flags)).toBe('verboseLevel')
    expect(closestWord('IGNORE_EXAMPLES', flags)).toBe('ignoreExamples')
  })

  it('takes the only candidate a word begins or is the beginning of', () => {
    expect(closestWord('dyn', flags)).toBe('dynamic')
    expect(closestWord('warning', ['warn', 'error'])).toBe('warn')
  })

  it('guesses nothing when no candidate is close, or when two begin alike', () => {
    expect(closestWord('frobnicate', flags)).toBeUndefined()
    expect(closestWord('x', flags)).toBeUndefined()
    expect(closestWord('journal', ['journal-size', 'journal-bytes'])).toBeUndefined()
  })
})
