import { SLOTS } from '../relay/merge-reads.js'
import { availableParallelism } from 'node:os'
import { CommandLineError } from './command-line-error.js'

/** Workers at most: more would only share the same cores, and the journal's ids keep 6 bits for the worker. */
export const MAX_WORKERS = SLOTS

/**
 * `--workers` / `MOCK_WORKERS`: a whole number from 1 to 64, or `auto` (one per core the process may
 * use, `os.availableParallelism()`, at most 64). `source` names the flag or the variable as written.
 * @example readWorkers('--workers', '2') // 2
 */
export function readWorkers(source: string, text: string): number {
  const trimmed = text.trim()
  if (trimmed === 'auto') return Math.min(availableParallelism(), MAX_WORKERS)
  if (/^\d+$/.test(trimmed) && Number(trimmed) >= 1 && Number(trimmed) <= MAX_WORKERS) return Number(trimmed)
  throw new CommandLineError(
    'cli_bad_workers',
    `${source} takes a whole number of processes from 1 to ${MAX_WORKERS}, or "auto" for one per core, got "${text}".`,
  )
}
