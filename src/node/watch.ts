import { type FSWatcher, existsSync, watch } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import type { ReadSet } from '../common/files.js'
import type { Logger } from '../common/log.js'

/** Edits often come as several writes (an editor's save, a git checkout): wait for them to settle. */
const SETTLE_MS = 150

/** `--watch`: follows the files a load read, and is told after each reload what the new one read. */
export interface SourceWatcher {
  /** Watches what this load read from now on: a `$ref` added by an edit is followed, a removed one no longer is. */
  follow(read: ReadSet): void
  close(): void
}

/** One watched folder: the names in it that were read, or any name for a folder that was listed. */
interface WatchedFolder {
  watcher: FSWatcher
  names: Set<string>
  anyName: boolean
}

/**
 * Calls `onChange` with the file that changed once the files a load read have stopped changing for
 * a moment (#35): the description, every file its `$ref`s reached, the fixtures, scenarios and seed
 * data. Each folder that holds one is watched (one handle a folder, not a file, at any depth):
 * editors replace files rather than write them, which a folder's watch sees and a file's would lose.
 * A folder that was listed (the fixtures and their subfolders) counts any change in it, so a new
 * fixture is seen; elsewhere only the names that were read count.
 */
export function watchSources(read: ReadSet, onChange: (file: string) => void, logger: Logger): SourceWatcher {
  let timer: NodeJS.Timeout | undefined
  let changedFile = ''
  const changed = (file: string) => {
    changedFile ||= file
    clearTimeout(timer)
    timer = setTimeout(() => {
      const file = changedFile
      changedFile = ''
      onChange(file)
    }, SETTLE_MS)
  }
  const watched = new Map<string, WatchedFolder>()
  const open = (folder: string): WatchedFolder | undefined => {
    try {
      const entry: WatchedFolder = { names: new Set(), anyName: false, watcher: undefined as never }
      entry.watcher = watch(folder, (_event, name) => {
        if (name && (entry.anyName || entry.names.has(name.toString()))) changed(join(folder, name.toString()))
      })
      entry.watcher.on('error', (error) => logger.warn(`watching ${folder} for changes failed: ${error.message}`))
      return entry
    } catch (error) {
      logger.warn(`cannot watch ${folder} for changes: ${(error as Error).message}`)
      return undefined
    }
  }
  const follow = ({ files, folders }: ReadSet) => {
    const wanted = new Map<string, { names: Set<string>; anyName: boolean }>()
    const want = (folder: string) => {
      let found = wanted.get(folder)
      if (!found) wanted.set(folder, (found = { names: new Set(), anyName: false }))
      return found
    }
    for (const file of files) {
      // A file in a folder not made yet (a $ref written before its target): the nearest folder there is
      // is watched for the first missing one's name.
      let [folder, name] = [dirname(file), basename(file)]
      while (!existsSync(folder) && dirname(folder) !== folder) [folder, name] = [dirname(folder), basename(folder)]
      want(folder).names.add(name)
    }
    for (const folder of folders) want(folder).anyName = true
    for (const [folder, entry] of watched)
      if (!wanted.has(folder)) {
        entry.watcher.close()
        watched.delete(folder)
      }
    for (const [folder, { names, anyName }] of wanted) {
      const entry = watched.get(folder) ?? open(folder)
      if (!entry) continue
      watched.set(folder, entry)
      entry.names = names
      entry.anyName = anyName
    }
  }
  follow(read)
  return {
    follow,
    close() {
      clearTimeout(timer)
      for (const { watcher } of watched.values()) watcher.close()
      watched.clear()
    },
  }
}
