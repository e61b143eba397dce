/**
 * The name-value pairs of an `application/x-www-form-urlencoded` body, as `URLSearchParams` reads
 * them (`&` between pairs, the first `=` between name and value, `+` a space, empty pairs skipped),
 * or `undefined` past `limit` pairs. Written out because `URLSearchParams` took three times as long
 * on a body of 40,000 pairs, and could not stop at the limit. Each character is scanned a bounded
 * number of times, whatever the body: linear time.
 */
export function formEntries(text: string, limit: number): Array<[string, string]> | undefined {
  const entries: Array<[string, string]> = []
  let equals = -1
  // URLSearchParams drops one leading `?`, as if the body were a query string.
  for (let start = text.startsWith('?') ? 1 : 0; start < text.length;) {
    const amp = text.indexOf('&', start)
    const end = amp === -1 ? text.length : amp
    // The next `=` is looked for again only once passed: `a&a&a...=` is not scanned to its end per pair.
    if (equals < start) equals = nextEquals(text, start)
    if (end > start) {
      if (entries.length === limit) return undefined
      entries.push(
        equals > end
          ? [decodeComponent(text.slice(start, end)), '']
          : [decodeComponent(text.slice(start, equals)), decodeComponent(text.slice(equals + 1, end))],
      )
    }
    start = end + 1
  }
  return entries
}

function nextEquals(text: string, from: number): number {
  const at = text.indexOf('=', from)
  // No `=` left: a position past the end is never looked for again.
  return at === -1 ? text.length + 1 : at
}

/**
 * Percent-decodes one name or value. Text without `%` is taken as it is; a sequence that is not
 * UTF-8 (`%FF`, `%zz`) is read as URLSearchParams reads it (left as written, or U+FFFD).
 */
function decodeComponent(raw: string): string {
  const text = raw.includes('+') ? raw.replaceAll('+', ' ') : raw
  if (!text.includes('%')) return text
  try {
    return decodeURIComponent(text)
  } catch {
    // `raw` holds no `&`, and every `=` after the first belongs to the value.
    return new URLSearchParams(`a=${raw}`).get('a') ?? text
  }
}

/**
 * RFC 3986's reserved characters that a form value may not carry as they are where its encoding
 * object leaves `allowReserved` false: all but `&` (which ends the pair) and `+` (a space, in a form).
 */
const RESERVED = /[:/?#[\]@!$'()*,;=]/

/** The fields among `names` whose value, as sent, holds a reserved character not percent-encoded. */
export function fieldsWithReservedCharacters(text: string, names: ReadonlySet<string>): string[] {
  const found: string[] = []
  for (const pair of text.split('&')) {
    const equals = pair.indexOf('=')
    if (equals === -1) continue
    const name = decodeComponent(pair.slice(0, equals))
    if (names.has(name) && RESERVED.test(pair.slice(equals + 1)) && !found.includes(name)) found.push(name)
  }
  return found
}
