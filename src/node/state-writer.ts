/**
 * Writes the state file (`--state-file`) after changes, always whole: a temporary file beside it is
 * written, synced and renamed over it, so a reader or a crash finds the old document or the new one,
 * never half of one. Read back by `readStateFile` (`state-file.ts`).
 */
import { closeSync, fsyncSync, openSync, readdirSync, renameSync, unlinkSync, writeFileSync } from 'node:fs'
import { open, unlink } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import type { Logger } from '../common/log.js'
import type { StateWriter } from '../common/state-file.js'
import { reasonOf } from './state-file.js'

export interface StateWriterOptions {
  /** A write waits for this long without changes, so that a burst is one write. @default 100 */
  delayMs?: number
  /** …but never longer than this after the first change not yet written. @default 1000 */
  maxDelayMs?: number
}

/**
 * Writes the state file after changes: `snapshot` is called at write time and returns the document's
 * JSON text, written as it is. One write at a time; the timer never holds the process open. A failed
 * write is logged once per distinct reason, kept unwritten and tried again at the next change or flush.
 * Temporary files left by a process that died mid-write (`<name>.<pid>.<n>.tmp`) are removed here.
 */
export function createStateWriter(
  path: string,
  snapshot: () => string,
  logger: Logger,
  { delayMs = 100, maxDelayMs = 1000 }: StateWriterOptions = {},
): StateWriter {
  removeStaleTemporaryFiles(path)
  const quietMs = Math.min(delayMs, maxDelayMs)
  // `dirty`: changes no snapshot has taken yet; the times are those of the first and last of them.
  let dirty = false
  let firstChangeAt = 0
  let lastChangeAt = 0
  let timer: NodeJS.Timeout | undefined
  let writing: Promise<void> | undefined
  // Bumped by each synchronous write: an asynchronous write begun before it must not rename over it.
  let syncWrites = 0
  let closed = false
  const loggedReasons = new Set<string>()

  const schedule = () => {
    const due = Math.min(lastChangeAt + quietMs, firstChangeAt + maxDelayMs)
    timer = setTimeout(onTimer, Math.max(0, due - performance.now()))
    timer.unref()
  }
  const clearTimer = () => {
    clearTimeout(timer)
    timer = undefined
  }
  // The timer is set once per quiet period, not reset per change: a burst of changes only moves `lastChangeAt`.
  const onTimer = () => {
    timer = undefined
    if (!dirty || writing || closed) return
    if (performance.now() < Math.min(lastChangeAt + quietMs, firstChangeAt + maxDelayMs)) schedule()
    else void startWrite()
  }

  const succeeded = () => {
    if (loggedReasons.size) logger.info(`the state file ${path} is written again`)
    loggedReasons.clear()
  }
  const failed = (error: unknown) => {
    // Unwritten again, and the next try waits a delay from now: a burst of changes is not a burst of failures.
    dirty = true
    firstChangeAt = lastChangeAt = performance.now()
    const reason = reasonOf(error, dirname(path))
    if (loggedReasons.has(reason)) return
    loggedReasons.add(reason)
    logger.error(
      `cannot write the state file ${path}: ${reason}; the data stays in memory and is written at the next change`,
    )
  }

  const startWrite = (): Promise<void> => {
    clearTimer()
    dirty = false
    const generation = syncWrites
    const current = attemptWrite(path, snapshot, () => generation === syncWrites).then((error) => {
      writing = undefined
      const changedMeanwhile = dirty
      if (error === undefined) succeeded()
      else failed(error)
      if (changedMeanwhile && !closed && !timer) schedule()
    })
    writing = current
    return current
  }

  return {
    changed() {
      const now = performance.now()
      if (!dirty) firstChangeAt = now
      dirty = true
      lastChangeAt = now
      if (!timer && !writing && !closed) schedule()
    },
    async flush() {
      if (writing) await writing
      if (dirty && !writing) void startWrite()
      // The write in progress now, ours or another flush's, began after this call: it holds every change before it.
      if (writing) await writing
    },
    flushSync() {
      if (!dirty && !writing) return
      clearTimer()
      dirty = false
      syncWrites++
      try {
        writeAtomicallySync(path, snapshot())
        succeeded()
      } catch (error) {
        failed(error)
      }
    },
    close() {
      closed = true
      clearTimer()
    },
  }
}

/** Resolves with the error a write failed with, or undefined; never rejects. */
async function attemptWrite(path: string, snapshot: () => string, stillCurrent: () => boolean): Promise<unknown> {
  try {
    await writeAtomically(path, snapshot(), stillCurrent)
    return undefined
  } catch (error) {
    return error ?? new Error('the write failed')
  }
}

/** Temporary files of this process's writes in progress; any other of its pid is left from an earlier process. */
const temporaryFiles = new Set<string>()
let temporaryCount = 0

function temporaryPath(path: string): string {
  const temporary = `${path}.${process.pid}.${++temporaryCount}.tmp`
  temporaryFiles.add(temporary)
  return temporary
}

/**
 * Write, sync, rename. The rename is synchronous: a synchronous write (`flushSync`) cannot come between
 * the check that this write is still the newest and its rename, which then never puts an older document back.
 */
async function writeAtomically(path: string, text: string, stillCurrent: () => boolean): Promise<void> {
  const temporary = temporaryPath(path)
  try {
    const handle = await open(temporary, 'wx')
    try {
      await handle.writeFile(text, 'utf8')
      await handle.sync()
    } finally {
      await handle.close()
    }
    if (stillCurrent()) renameSync(temporary, path)
    else await unlink(temporary)
  } catch (error) {
    await unlink(temporary).catch(() => {})
    throw error
  } finally {
    temporaryFiles.delete(temporary)
  }
}

function writeAtomicallySync(path: string, text: string): void {
  const temporary = temporaryPath(path)
  try {
    const fd = openSync(temporary, 'wx')
    try {
      writeFileSync(fd, text, 'utf8')
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(temporary, path)
  } catch (error) {
    try {
      unlinkSync(temporary)
    } catch {
      // It was never made, or is gone already.
    }
    throw error
  } finally {
    temporaryFiles.delete(temporary)
  }
}

/** `<name>.<pid>.<n>.tmp` beside the state file whose process is gone (kill -9, power loss mid-write). */
function removeStaleTemporaryFiles(path: string): void {
  const folder = dirname(path)
  const prefix = `${basename(path)}.`
  let entries: string[]
  try {
    entries = readdirSync(folder)
  } catch {
    return
  }
  for (const entry of entries) {
    const pid = entry.startsWith(prefix) ? /^(\d+)\.\d+\.tmp$/.exec(entry.slice(prefix.length))?.[1] : undefined
    const file = join(folder, entry)
    if (pid === undefined || temporaryFiles.has(file) || isOtherProcessRunning(Number(pid))) continue
    try {
      unlinkSync(file)
    } catch {
      // Another process removed it first, or the folder is read-only: it is only litter.
    }
  }
}

/** A container restarts its mock with the same pid: this process's own pid is never "running" someone else. */
function isOtherProcessRunning(pid: number): boolean {
  if (pid === process.pid) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
