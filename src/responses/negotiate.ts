import { essenceOf } from '../internal/media-type.js'

/** One range of an `Accept` header: `application/json`, `text/*`, `*\/*`, with its weight. */
interface AcceptRange {
  type: string
  subtype: string
  q: number
  /** Position in the header: among equal weights, the client's order decides. */
  order: number
}

/** How well a range matches a media type: higher is more specific; 0 is no match. */
const EXACT = 4
/** `application/json` accepts `application/hal+json` (a JSON document), below an exact match. */
const JSON_SUFFIX = 3
const SUBTYPE_WILDCARD = 2
const ANY = 1

/**
 * The declared media types a client accepts, best first (RFC 9110 §12.5.1): each media type takes
 * the weight of the most specific range that matches it, `q=0` excludes it, and among equal weights
 * the client's order decides, then the order of `declared` (its first entry is the mock's preference).
 * A missing or empty `Accept` accepts everything.
 */
export function rankMediaTypes<T extends { contentType: string }>(
  declared: readonly T[],
  accept: string | undefined,
): T[] {
  if (accept === undefined || accept.trim() === '' || accept.trim() === '*/*') return [...declared]
  const ranges = parseAccept(accept)
  if (ranges.length === 0) return [...declared]
  const ranked: Array<{ media: T; q: number; order: number; index: number }> = []
  declared.forEach((media, index) => {
    const match = bestRangeFor(ranges, essenceOf(media.contentType))
    if (match && match.q > 0) ranked.push({ media, q: match.q, order: match.order, index })
  })
  ranked.sort((a, b) => b.q - a.q || a.order - b.order || a.index - b.index)
  return ranked.map((r) => r.media)
}

/** The first of `rankMediaTypes`, or `undefined` when the client accepts none of them (406). */
export function negotiateMediaType<T extends { contentType: string }>(
  declared: readonly T[],
  accept: string | undefined,
): T | undefined {
  if (accept === undefined || accept === '*/*') return declared[0]
  return rankMediaTypes(declared, accept)[0]
}

export function parseAccept(header: string): AcceptRange[] {
  const ranges: AcceptRange[] = []
  header.split(',').forEach((part, order) => {
    const [range = '', ...params] = part.split(';')
    const slash = range.indexOf('/')
    if (slash === -1) return
    const type = range.slice(0, slash).trim().toLowerCase()
    const subtype = range
      .slice(slash + 1)
      .trim()
      .toLowerCase()
    if (!type || !subtype) return
    ranges.push({ type, subtype, q: weightOf(params), order })
  })
  return ranges
}

function weightOf(params: string[]): number {
  for (const param of params) {
    const [name, value] = param.split('=').map((s) => s.trim())
    if (name?.toLowerCase() !== 'q') continue
    const q = Number(value)
    // An unreadable weight counts as 1, rather than excluding what the client asked for.
    return Number.isFinite(q) && q >= 0 && q <= 1 ? q : 1
  }
  return 1
}

function bestRangeFor(ranges: readonly AcceptRange[], essence: string): AcceptRange | undefined {
  const slash = essence.indexOf('/')
  const type = essence.slice(0, slash)
  const subtype = essence.slice(slash + 1)
  let best: AcceptRange | undefined
  let bestScore = 0
  for (const range of ranges) {
    const score = scoreOf(range, type, subtype)
    if (score > bestScore) {
      best = range
      bestScore = score
    }
  }
  return best
}

function scoreOf(range: AcceptRange, type: string, subtype: string): number {
  if (range.type === '*') return range.subtype === '*' ? ANY : 0
  if (range.type !== type) return 0
  if (range.subtype === subtype) return EXACT
  if (range.subtype === '*') return SUBTYPE_WILDCARD
  if (range.subtype === 'json' && subtype.endsWith('+json')) return JSON_SUFFIX
  return 0
}
