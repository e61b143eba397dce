/**
 * The state file (`--state-file data.json`): stateful mode's records kept across restarts. Read once
 * at start-up (`readStateFile`), written after changes (`createStateWriter`), always whole: a
 * temporary file beside it is written, synced and renamed over it, so a reader or a crash finds the
 * old document or the new one, never half of one. A file the mock cannot read as its own is refused,
 * never overwritten.
 */
import { closeSync, fsyncSync, openSync, readdirSync, renameSync, unlinkSync, writeFileSync } from 'node:fs'
import { open, readFile, unlink } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { LosslessNumber, isSafeNumber, parse } from 'lossless-json'
import { startupErrors, StartupError } from '../errors.js'
import { isPlainObject } from '../internal/plain-object.js'
import type { Logger } from '../log.js'

/**
 * What the state file holds: the data without a session, and each session's. Records are plain JSON
 * objects; read back, an integer beyond 2^53 (or a number a float would round) is a `LosslessNumber`
 * holding its literal, every other number a number.
 */
export interface StateDocument {
  version: 1
  /** resource name → records */
  data: Record<string, unknown[]>
  /** session name → resource name → records */
  sessions: Record<string, Record<string, unknown[]>>
}

/**
 * Reads the state file: undefined when it does not exist; a StartupError when it cannot be read
 * (`state_file_unreadable`), or is empty, not JSON or not a StateDocument (`state_file_invalid`),
 * naming the file and what is wrong. Never writes.
 */
export async function readStateFile(path: string): Promise<StateDocument | undefined> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw startupErrors.stateFileUnreadable(path, reasonOf(error))
  }
  const value = parseStateText(path, text)
  const problem = documentProblem(value)
  if (problem !== undefined) throw startupErrors.stateFileInvalid(path, problem)
  const { data, sessions = {} } = value as Omit<StateDocument, 'sessions'> & Partial<StateDocument>
  return { version: 1, data, sessions }
}

export interface StateWriter {
  /** The data changed: written within `maxDelayMs` of the first change not yet written, changes coalesced. */
  changed(): void
  /** Writes now if anything is unwritten, and waits for any write in progress. A failure is logged, not thrown. */
  flush(): Promise<void>
  /** The same, synchronously (for process exit paths); a write in progress is superseded, not waited for. */
  flushSync(): void
  /** Stops the timer (after a final flush by the caller); a later change is written only by a flush. */
  close(): void
}

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

// Reading.

/** Integers beyond 2^53 (and numbers a float would round) keep their literal. */
const parseNumber = (text: string): unknown => (isSafeNumber(text) ? Number(text) : new LosslessNumber(text))

function parseStateText(path: string, text: string): unknown {
  const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  // Never read as "no data": the next write would replace whatever the file was meant to hold.
  if (json.trim() === '') throw startupErrors.stateFileInvalid(path, 'it is empty')
  try {
    return parse(json, null, {
      parseNumber,
      onDuplicateKey: ({ key, position }) => {
        throw startupErrors.stateFileInvalid(
          path,
          `the key "${key}" appears twice in one object (${at(json, position - 1)})`,
        )
      },
    })
  } catch (error) {
    if (error instanceof StartupError) throw error
    // lossless-json recurses: deep enough nesting overflows the stack.
    if (error instanceof RangeError) throw startupErrors.stateFileInvalid(path, 'it nests too deeply to read')
    throw startupErrors.stateFileInvalid(path, `it is not JSON: ${withLineAndColumn(json, (error as Error).message)}`)
  }
}

const FIELDS = ['version', 'data', 'sessions']

/** What keeps `value` from being a StateDocument (`sessions` may be absent), or undefined. */
function documentProblem(value: unknown): string | undefined {
  if (!isPlainObject(value)) return `it holds ${kindOf(value)}, not an object with version, data and sessions`
  const unknown = Object.keys(value).find((key) => !FIELDS.includes(key))
  if (unknown !== undefined) return `${member('', unknown)} is not a field of a state file (${FIELDS.join(', ')})`
  if (value.version === undefined) return 'version is missing, this mock reads 1'
  if (value.version !== 1) return `version is ${shown(value.version)}, this mock reads 1`
  if (value.data === undefined) return 'data is missing'
  return resourcesProblem('data', value.data) ?? sessionsProblem(value.sessions)
}

function sessionsProblem(sessions: unknown): string | undefined {
  if (sessions === undefined) return undefined
  if (!isPlainObject(sessions)) return `sessions is not an object, it is ${kindOf(sessions)}`
  for (const [name, data] of Object.entries(sessions)) {
    const problem = resourcesProblem(member('sessions', name), data)
    if (problem !== undefined) return problem
  }
  return undefined
}

/** `where` holds resource name → records, each record an object. */
function resourcesProblem(where: string, value: unknown): string | undefined {
  if (!isPlainObject(value)) return `${where} is not an object, it is ${kindOf(value)}`
  for (const [resource, records] of Object.entries(value)) {
    const field = member(where, resource)
    if (!Array.isArray(records)) return `${field} is not an array, it is ${kindOf(records)}`
    const index = records.findIndex((record) => !isPlainObject(record))
    if (index !== -1) return `${field}[${index}] is not an object, it is ${kindOf(records[index])}`
  }
  return undefined
}

/** `data.plants`, `data["a b"]`. */
function member(where: string, key: string): string {
  if (/^[A-Za-z_$][\w$/-]*$/.test(key)) return where ? `${where}.${key}` : key
  return `${where}[${JSON.stringify(key)}]`
}

function kindOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (value instanceof LosslessNumber || typeof value === 'number') return 'a number'
  if (typeof value === 'object') return 'an object'
  return `a ${typeof value}`
}

function shown(value: unknown): string {
  if (value instanceof LosslessNumber) return value.value
  if (typeof value === 'string' || typeof value === 'number') return JSON.stringify(value)
  return kindOf(value)
}

/** lossless-json says `at position 812`; people read line 14, column 3. */
function withLineAndColumn(text: string, message: string): string {
  return message.replace(/at position (\d+)/, (_, position: string) => `at ${at(text, Number(position))}`)
}

function at(text: string, position: number): string {
  const before = text.slice(0, position)
  const line = before.split('\n').length
  return `line ${line}, column ${position - before.lastIndexOf('\n')}`
}

/** `permission denied (EACCES)`; a missing folder by name. */
function reasonOf(error: unknown, folder?: string): string {
  const { code, message } = (error ?? {}) as NodeJS.ErrnoException
  if (code === 'ENOENT' && folder !== undefined) return `the folder ${folder} does not exist`
  if (code === 'EISDIR') return 'it is a folder'
  const described = typeof code === 'string' ? /^[A-Z0-9_]+: ([^,]+)/.exec(message)?.[1] : undefined
  if (described !== undefined) return `${described} (${code})`
  return typeof message === 'string' ? message : String(error)
}
