/**
 * `new Date(ms).toISOString()` for the times the mock writes, which come in order: the text up to
 * the second is made once a second and the milliseconds added. `toISOString` formats with the C
 * library's printf, some 3,000 instructions a call, which a journal summary (every request while a
 * dashboard is open) and a JSON log line paid (#29); this is some 30 times cheaper.
 */
export function isoTime(ms: number): string {
  const whole = Math.floor(ms)
  const second = Math.floor(whole / 1000)
  if (second !== cachedSecond) {
    // Outside Date's range, toISOString throws: as it would have.
    cachedPrefix = new Date(second * 1000).toISOString().slice(0, -4)
    cachedSecond = second
  }
  const milliseconds = whole - second * 1000
  return `${cachedPrefix}${milliseconds < 10 ? '00' : milliseconds < 100 ? '0' : ''}${milliseconds}Z`
}

/** The second last formatted, and its text up to the decimal point (`2026-11-29T00:41:12.`). */
let cachedSecond = NaN
let cachedPrefix = ''
