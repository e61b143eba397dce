import { stringify as stringifyLossless } from 'lossless-json'
import { type ListQuery, type RecordPage, pageRecords } from './list-page.js'
import type {
  CreateOutcome,
  RecordPlace,
  RecordSets,
  RecordStore,
  ReplaceHow,
  ReplaceOutcome,
  StoredRecord,
} from './record-store.js'
import { assignId, keyOf, mergePatch, withKey } from './record-values.js'
import { carryExact } from '../internal/exact-values.js'
import {
  type Dataset,
  collectionOf,
  countOf,
  datasetOf,
  drop,
  fork,
  highestKeyOf,
  own,
  ownedCountOf,
  put,
  setsOf,
  withFieldsOf,
} from './datasets.js'
import type { Resource } from './resource.js'
import type { StateDocument } from '../common/state-file.js'

export interface MemoryRecordOptions {
  resources: readonly Resource[]
  /** The seed (`fixtures/data/<resource>.json`), already checked: what the data starts from and `reset` restores. */
  seed: RecordSets
  /** Records kept at most per resource and session (`--state-limit`). */
  limit: number
  /** Sessions with data of their own kept at most; the least recently used is dropped first. */
  maxSessions: number
  /**
   * Records the sessions' own data holds at most, all sessions together (the data without a session is
   * bounded by `limit` per resource): beyond it, the least recently used sessions' data is dropped.
   */
  maxSessionRecords: number
  /** Called after every change (the state file's writer). */
  changed?: () => void
}

/**
 * The in-memory record store, the default: every operation answers at once (`RecordStore`'s answers,
 * never a promise), and the whole state can be taken (`snapshot`) to carry across a reload or save
 * (`serialize`, `--state-file`).
 */
export interface MemoryRecordStore extends RecordStore {
  create(place: RecordPlace, record: StoredRecord): CreateOutcome
  read(place: RecordPlace, id: string): StoredRecord | undefined
  replace(place: RecordPlace, id: string, record: StoredRecord, how: ReplaceHow): ReplaceOutcome
  merge(place: RecordPlace, id: string, patch: unknown): StoredRecord | undefined
  remove(place: RecordPlace, id: string): StoredRecord | undefined
  list(place: RecordPlace, query: ListQuery): RecordPage
  get(session: string | undefined, resource?: string): RecordSets
  set(session: string | undefined, resource: string, records: readonly StoredRecord[]): void
  reset(session?: string): void
  size(): { sessions: number; records: number }
  /** The whole state as the state file holds it (records shared, never changed in place). */
  snapshot(): StateDocument
  /** The same, serialised (exact integers as written). */
  serialize(): string
}

/** The in-memory record store: the default, and the one `--state-file` saves. */
export function createMemoryRecords(options: MemoryRecordOptions, restored?: StateDocument): MemoryRecordStore {
  const { resources, limit, maxSessions, maxSessionRecords } = options
  const changed = options.changed ?? (() => {})
  const byName = new Map(resources.map((resource) => [resource.name, resource]))
  const seed = datasetOf(byName, options.seed)
  let shared = restored ? datasetOf(byName, restored.data as RecordSets) : fork(seed)
  const sessions = new Map<string, Dataset>()
  for (const [name, sets] of Object.entries(restored?.sessions ?? {}))
    sessions.set(name, datasetOf(byName, sets as RecordSets))
  /** Records the sessions' own collections hold, all together (`maxSessionRecords`). */
  let sessionRecords = 0
  for (const dataset of sessions.values()) sessionRecords += ownedCountOf(dataset)

  /** Drops a session and what its data held. */
  const forget = (session: string) => {
    const dataset = sessions.get(session)
    if (!dataset) return
    sessions.delete(session)
    sessionRecords -= ownedCountOf(dataset)
  }
  /** The dataset of a session, made from the seed on first use, and marked as the most recently used. */
  const datasetFor = (session: string | undefined): Dataset => {
    if (session === undefined) return shared
    let dataset = sessions.get(session)
    if (dataset) {
      sessions.delete(session)
    } else {
      dataset = fork(seed)
      if (sessions.size >= maxSessions) forget(sessions.keys().next().value!)
    }
    sessions.set(session, dataset)
    return dataset
  }
  /** After a session's data grew by `added`: the least recently used sessions go while all hold too many. */
  const grew = (session: string | undefined, added: number) => {
    if (session === undefined || added === 0) return
    sessionRecords += added
    for (const [name] of sessions) {
      if (sessionRecords <= maxSessionRecords) return
      if (name !== session) forget(name)
    }
  }
  const recordsAt = ({ session, resource, scope }: RecordPlace) =>
    datasetFor(session).collections.get(resource.name)?.get(scope)
  /** The records of a place, writable: the dataset's own copy of the collection (counted once made), the scope made if new. */
  const writableAt = ({ session, resource, scope }: RecordPlace) => {
    const dataset = datasetFor(session)
    const copied = !dataset.owned.has(resource.name)
    const collection = own(dataset, resource.name)
    if (copied) grew(session, countOf(collection))
    let records = collection.get(scope)
    if (!records) collection.set(scope, (records = new Map()))
    return { collection, records }
  }

  return {
    create(place, record): CreateOutcome {
      const { resource } = place
      const { collection, records } = writableAt(place)
      let key = keyOf(record[resource.idField], resource.idKind)
      if (key !== undefined && records.has(key)) return { outcome: 'exists', id: key }
      if (countOf(collection) >= limit) return { outcome: 'full', limit }
      let stored = record
      if (key === undefined) {
        const id = assignId(resource.idKind, records, () => highestKeyOf(records))
        key = keyOf(id, resource.idKind)!
        stored = withKey(record, resource.idField, id)
      }
      put(collection, records, key, stored)
      grew(place.session, 1)
      changed()
      return { outcome: 'created', id: key, record: stored }
    },
    read: (place, id) => recordsAt(place)?.get(id),
    replace(place, id, given, { createsIfAbsent, kept }): ReplaceOutcome {
      const existing = recordsAt(place)?.get(id)
      if (!existing && !createsIfAbsent) return { outcome: 'missing' }
      const { collection, records } = writableAt(place)
      if (!existing && countOf(collection) >= limit) return { outcome: 'full', limit }
      const record = existing ? withFieldsOf(existing, kept, given) : given
      put(collection, records, id, record)
      if (!existing) grew(place.session, 1)
      changed()
      return { outcome: existing ? 'replaced' : 'created', record }
    },
    merge(place, id, patch) {
      const existing = recordsAt(place)?.get(id)
      if (!existing) return undefined
      const merged = carryExact(existing, mergePatch(existing, patch) as Record<string, unknown>)
      // The key stays what the path says, whatever the patch.
      merged[place.resource.idField] = existing[place.resource.idField]
      const { collection, records } = writableAt(place)
      put(collection, records, id, merged)
      changed()
      return merged
    },
    remove(place, id) {
      const existing = recordsAt(place)?.get(id)
      if (!existing) return undefined
      const { collection, records } = writableAt(place)
      drop(collection, records, id)
      if (place.session !== undefined) sessionRecords--
      changed()
      return existing
    },
    list(place: RecordPlace, query: ListQuery): RecordPage {
      return pageRecords(recordsAt(place)?.values() ?? [], query)
    },
    get(session, resource) {
      const dataset = session === undefined ? shared : (sessions.get(session) ?? seed)
      return setsOf(byName, dataset, resource)
    },
    set(session, resource, records) {
      const dataset = datasetFor(session)
      const before = dataset.owned.has(resource) ? countOf(dataset.collections.get(resource)!) : 0
      const collection = collectionOf(byName.get(resource)!, records)
      dataset.collections.set(resource, collection)
      dataset.owned.add(resource)
      grew(session, countOf(collection) - before)
      changed()
    },
    reset(session) {
      if (session !== undefined) forget(session)
      else {
        sessions.clear()
        sessionRecords = 0
        shared = fork(seed)
      }
      changed()
    },
    size() {
      let records = 0
      for (const dataset of [shared, ...sessions.values()])
        for (const collection of dataset.collections.values()) records += countOf(collection)
      return { sessions: sessions.size, records }
    },
    snapshot() {
      const snapshot: StateDocument = { version: 1, data: setsOf(byName, shared), sessions: {} }
      for (const [name, dataset] of sessions) snapshot.sessions[name] = setsOf(byName, dataset)
      return snapshot
    },
    serialize() {
      return stringifyLossless(this.snapshot())!
    },
  }
}
