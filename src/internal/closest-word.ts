/**
 * The candidate a mistyped word most likely meant, for "did you mean" messages: the one at the
 * smallest edit distance, ignoring case, `-` and `_` (so `--verbose_level` finds `--verboseLevel`),
 * provided the distance is small beside the word (at most a third of its length, at least 1); else
 * the only candidate the word begins or is the beginning of (`warning` → `warn`, `dyn` → `dynamic`).
 * `undefined` when nothing is close enough: a wild guess misleads more than no guess.
 * @example closestWord('prot', ['port', 'host']) // 'port'
 */
export function closestWord(word: string, candidates: readonly string[]): string | undefined {
  const wanted = comparable(word)
  const limit = Math.max(1, Math.floor(wanted.length / 3))
  let best: string | undefined
  let bestDistance = limit + 1
  for (const candidate of candidates) {
    const distance = editDistance(wanted, comparable(candidate))
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance]
  }
  return best ?? onlyPrefixMatch(wanted, candidates)
}

function onlyPrefixMatch(wanted: string, candidates: readonly string[]): string | undefined {
  if (wanted.length < 3) return undefined
  const matches = candidates.filter((candidate) => {
    const other = comparable(candidate)
    return other.length >= 3 && (other.startsWith(wanted) || wanted.startsWith(other))
  })
  return matches.length === 1 ? matches[0] : undefined
}

function comparable(word: string): string {
  return word.toLowerCase().replace(/[-_]/g, '')
}

/** Levenshtein distance with adjacent transpositions (`prot` → `port` is one edit), one row at a time. */
export function editDistance(a: string, b: string): number {
  let before: number[] = []
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let distance = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        distance = Math.min(distance, before[j - 2]! + 1)
      current.push(distance)
    }
    ;[before, previous] = [previous, current]
  }
  return previous[b.length]!
}
