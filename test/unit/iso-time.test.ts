/** isoTime (#29) writes what `Date.prototype.toISOString` writes, for any time, in order or not. */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isoTime } from '../../src/internal/iso-time.js'

describe('isoTime', () => {
  it('equals toISOString for times in order, out of order, before 1970 and with fractions of a millisecond', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: -8.64e15, max: 8.64e15, noNaN: true }), { maxLength: 20 }), (times) => {
        for (const time of times) expect(isoTime(time)).toBe(new Date(Math.floor(time)).toISOString())
      }),
      { numRuns: 300 },
    )
    for (const time of [0, 999, 1000, -1, -1000, 1_800_000_000_000, 1_800_000_000_001, 1_799_999_999_999])
      expect(isoTime(time)).toBe(new Date(time).toISOString())
  })

  it('throws for a time outside Date’s range, as toISOString does', () => {
    expect(() => isoTime(8.64e15 + 1000)).toThrow(RangeError)
  })
})
