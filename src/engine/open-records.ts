import { startupErrors } from '../errors/index.js'
import { duplicateKeyProblems } from '../state/check-records.js'
import type { Engine } from './engine.js'
import { type MemoryRecordStore, createMemoryRecords } from '../state/memory-records.js'
import type { RecordSets, RecordStore } from '../state/record-store.js'
import type { SharedStore } from './shared-store.js'
import { markIfExact, plainValueOf } from '../internal/exact-values.js'
import type { StateDocument, StateWriter } from '../common/state-file.js'

/** Sessions with data of their own kept at most, as sessions with a scenario of their own are. */
const MAX_DATA_SESSIONS = 10_000
/** Records all sessions' own data holds at most (about 155 bytes each: some 150 MiB); the least recently used sessions' data goes first. */
const MAX_SESSION_RECORDS = 1_000_000

export interface OpenedRecords {
  records: MemoryRecordStore
  /** Saves the data to `--state-file`; `undefined` without one. */
  writer?: StateWriter
}

/**
 * The record store of a stateful engine: from the state file if there is one (its records checked as
 * seed data is: a file that is not the mock's stops start-up, and is never overwritten), else from
 * the seed; a reload under `--watch` carries the data of the version it replaces.
 */
export async function openRecords(engine: Engine, previous?: MemoryRecordStore): Promise<OpenedRecords | undefined> {
  const { stateful, options, logger, platform } = engine
  if (!stateful) return undefined
  const restored = previous
    ? previous.snapshot()
    : options.stateFile
      ? await platform.stateFile.read(options.stateFile)
      : undefined
  if (restored && options.stateFile && !previous) checkRestored(engine, options.stateFile, restored)
  let records: MemoryRecordStore | undefined
  const writer = options.stateFile
    ? platform.stateFile.createWriter(options.stateFile, () => records!.serialize(), logger)
    : undefined
  records = createMemoryRecords(
    {
      resources: stateful.resources,
      seed: stateful.seed,
      limit: options.stateLimit,
      maxSessions: MAX_DATA_SESSIONS,
      maxSessionRecords: MAX_SESSION_RECORDS,
      changed: writer?.changed,
    },
    restored,
  )
  return { records, writer }
}

/** The records of a stateful engine in a shared store (`--store`); `undefined` without `--stateful`. */
export function openSharedRecords(engine: Engine, store: SharedStore): RecordStore | undefined {
  const { stateful, options } = engine
  if (!stateful) return undefined
  return store.openRecords({
    resources: stateful.resources,
    seed: stateful.seed,
    limit: options.stateLimit,
    maxSessions: MAX_DATA_SESSIONS,
  })
}

/** What the shared store's keys start with: `--store-prefix`, else the description's title and version. */
export function storePrefixOf(engine: Engine): string {
  const info = engine.spec.document.info ?? {}
  return engine.options.storePrefix ?? `${info.title ?? 'API'} ${info.version ?? ''}`.trim()
}

/** Every resource the file names must be one of the description's, and its records pass the resource's checks. */
function checkRestored(engine: Engine, file: string, document: StateDocument): void {
  const { checkers, resources } = engine.stateful!
  const sets: Array<[string, Record<string, unknown[]>]> = [
    ['data', document.data],
    ...Object.entries(document.sessions).map(([name, data]): [string, Record<string, unknown[]>] => [
      `sessions.${name}`,
      data,
    ]),
  ]
  for (const [where, data] of sets) {
    for (const [name, records] of Object.entries(data)) {
      const check = checkers.get(name)
      if (!check)
        throw startupErrors.stateFileInvalid(
          file,
          `${where}.${name} names no resource of the description (resources: ${resources.map((r) => r.name).join(', ') || 'none'})`,
        )
      ;(records as RecordSets[string]).forEach(markIfExact)
      const problems = check(plainValueOf(records))
      problems.push(
        ...duplicateKeyProblems(
          resources.find((r) => r.name === name)!,
          records,
        ),
      )
      if (problems.length) throw startupErrors.stateFileInvalid(file, `${where}.${name}${problems[0]}`)
    }
  }
}
