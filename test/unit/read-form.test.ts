import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { formEntries } from '../../src/validation/read-form.js'

/** Pieces that exercise every rule of the format: separators, `+`, good, bad and partial escapes. */
const piece = fc.constantFrom(
  'a',
  'b',
  '=',
  '&',
  '+',
  '?',
  '%',
  '%2',
  '%41',
  '%FF',
  '%E2%82%AC',
  '%E2%82',
  '%zz',
  'é',
  ' ',
  '%26',
  '%3D',
  '[',
  ']',
)

describe('formEntries', () => {
  it('reads any text exactly as URLSearchParams does', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => {
        const text = pieces.join('')
        expect(formEntries(text, 1000)).toEqual([...new URLSearchParams(text)])
      }),
      { numRuns: 3000 },
    )
  })

  it('stops past the limit of pairs, not counting empty ones', () => {
    expect(formEntries('a=1&&b=2&', 2)).toEqual([
      ['a', '1'],
      ['b', '2'],
    ])
    expect(formEntries('a=1&b=2&c=3', 2)).toBeUndefined()
  })

  it('reads pairs without `=` followed by one far `=` without quadratic work (which would outrun the test time limit)', () => {
    const text = `${'a&'.repeat(200_000)}b=1`
    expect(formEntries(text, 1_000_000)).toHaveLength(200_001)
  })
})
