import { type FSWatcher, watch } from 'node:fs'
import { dirname } from 'node:path'
import type { Logger } from '../common/log.js'

/** Edits often come as several writes (an editor's save, a git checkout): wait for them to settle. */
const SETTLE_MS = 150

/**
 * Calls `onChange` once the files under the watched places have stopped changing for a moment.
 * The description is watched through its folder (editors replace files rather than write them, and
 * `$ref`'d files usually sit beside it); fixtures recursively. Returns a function that stops watching.
 */
export function watchSources(
  { spec, fixtures }: { spec: string; fixtures: string },
  onChange: () => void,
  logger: Logger,
): () => void {
  let timer: NodeJS.Timeout | undefined
  const changed = () => {
    clearTimeout(timer)
    timer = setTimeout(onChange, SETTLE_MS)
  }
  const watchers: FSWatcher[] = [
    watch(dirname(spec), (_event, file) => file && /\.(ya?ml|json)$/i.test(file) && changed()),
  ]
  if (fixtures) watchers.push(watch(fixtures, { recursive: true }, changed))
  for (const watcher of watchers)
    watcher.on('error', (error) => logger.warn(`watching for changes failed: ${error.message}`))
  return () => {
    clearTimeout(timer)
    for (const watcher of watchers) watcher.close()
  }
}
