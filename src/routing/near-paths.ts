import { editDistance } from '../internal/closest-word.js'
import type { Router } from './create-router.js'

/** Paths shown near a missed one, at most. */
const NEAR_PATHS = 3

/**
 * The declared paths closest to one that matched nothing (`/plant` → `/plants`), by edit distance
 * over those that share its first segment, or all where none does: work done on a miss only.
 */
export function nearPaths(router: Router<unknown>, path: string): string[] {
  const stripped = router.prefixes.find((p) => path.startsWith(`${p}/`))
  const sent = stripped ? path.slice(stripped.length) : path
  const first = sent.split('/', 2)[1] ?? ''
  const sameStart = router.paths.filter((p) => p.split('/', 2)[1] === first)
  const candidates = sameStart.length ? sameStart : router.paths
  // A description of thousands of paths is not measured whole for each miss.
  if (candidates.length > 2000) return []
  return candidates
    .map((candidate) => ({ candidate, distance: editDistance(sent, candidate) }))
    .sort((a, b) => a.distance - b.distance || a.candidate.localeCompare(b.candidate))
    .slice(0, NEAR_PATHS)
    .map((c) => c.candidate)
}
