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
import { assignId, carryExact, keyOf, mergePatch, withKey } from './record-values.js'
import type { Resource } from './resource.js'
import type { StateDocument } from './state-file.js'

/** Records of one resource: scope → key → record, in creation order. */
type Collection = Map<string, Map<string, StoredRecord>>

/**
 * One set of data (the one without a session, or a session's): resource name → collection. A session
 * starts sharing the seed's collections and copies one the first time it writes to it.
 */
interface Dataset {
  collections: Map<string, Collection>
  /** Collections this dataset has copied, and may change. */
  owned: Set<string>
}

export interface MemoryRecordOptions {
  resources: readonly Resource[]
  /** The seed (`fixtures/data/<resource>.json`), already checked: what the data starts from and `reset` restores. */
  seed: RecordSets
  /** Records kept at most per resource and session (`--state-limit`). */
  limit: number
  /** Sessions with data of their own kept at most; the least recently used is dropped first. */
  maxSessions: number
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
  const { resources, limit, maxSessions } = options
  const changed = options.changed ?? (() => {})
  const byName = new Map(resources.map((resource) => [resource.name, resource]))
  const seed = datasetOf(byName, options.seed)
  let shared = restored ? datasetOf(byName, restored.data as RecordSets) : fork(seed)
  const sessions = new Map<string, Dataset>()
  for (const [name, sets] of Object.entries(restored?.sessions ?? {}))
    sessions.set(name, datasetOf(byName, sets as RecordSets))

  /** The dataset of a session, made from the seed on first use, and marked as the most recently used. */
  const datasetFor = (session: string | undefined): Dataset => {
    if (session === undefined) return shared
    let dataset = sessions.get(session)
    if (dataset) {
      sessions.delete(session)
    } else {
      dataset = fork(seed)
      if (sessions.size >= maxSessions) sessions.delete(sessions.keys().next().value!)
    }
    sessions.set(session, dataset)
    return dataset
  }
  const recordsAt = ({ session, resource, scope }: RecordPlace) =>
    datasetFor(session).collections.get(resource.name)?.get(scope)
  /** The records of a place, writable: the dataset's own copy of the collection, the scope made if new. */
  const writableAt = ({ session, resource, scope }: RecordPlace) => {
    const collection = own(datasetFor(session), resource.name)
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
        const id = assignId(resource.idKind, records)
        key = keyOf(id, resource.idKind)!
        stored = withKey(record, resource.idField, id)
      }
      records.set(key, stored)
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
      records.set(id, record)
      changed()
      return { outcome: existing ? 'replaced' : 'created', record }
    },
    merge(place, id, patch) {
      const existing = recordsAt(place)?.get(id)
      if (!existing) return undefined
      const merged = carryExact(existing, mergePatch(existing, patch) as Record<string, unknown>)
      // The key stays what the path says, whatever the patch.
      merged[place.resource.idField] = existing[place.resource.idField]
      writableAt(place).records.set(id, merged)
      changed()
      return merged
    },
    remove(place, id) {
      const existing = recordsAt(place)?.get(id)
      if (!existing) return undefined
      writableAt(place).records.delete(id)
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
      dataset.collections.set(resource, collectionOf(byName.get(resource)!, records))
      dataset.owned.add(resource)
      changed()
    },
    reset(session) {
      if (session !== undefined) sessions.delete(session)
      else {
        sessions.clear()
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

/** A dataset that shares every collection of `from` until it writes to one. */
function fork(from: Dataset): Dataset {
  return { collections: new Map(from.collections), owned: new Set() }
}

/** The dataset's own copy of a collection, made on its first write (records are never changed in place, so they are shared). */
function own(dataset: Dataset, resource: string): Collection {
  let collection = dataset.collections.get(resource)
  if (dataset.owned.has(resource) && collection) return collection
  const copy: Collection = new Map()
  for (const [scope, records] of collection ?? []) copy.set(scope, new Map(records))
  dataset.collections.set(resource, copy)
  dataset.owned.add(resource)
  return copy
}

/** `record` with the `fields` `from` has (the server's, which a replace keeps), as a new object where it changes. */
function withFieldsOf(from: StoredRecord, fields: readonly string[], record: StoredRecord): StoredRecord {
  const carried = fields.filter((field) => from[field] !== undefined)
  if (carried.length === 0) return record
  const merged: Record<string, unknown> = carryExact(from, carryExact(record, { ...record }))
  for (const field of carried) merged[field] = from[field]
  return merged
}

function countOf(collection: Collection): number {
  let count = 0
  for (const records of collection.values()) count += records.size
  return count
}

/** `$scope` holds a nested record's parents: `{"$scope": {"gardenId": "…"}, "bedId": 1, …}`. */
export const SCOPE_FIELD = '$scope'

/** The key of a scope: `''` at the top level, else its parameters' values in order. */
export function scopeKeyOf(resource: Resource, params: Readonly<Record<string, unknown>>): string {
  if (resource.scope.length === 0) return ''
  return JSON.stringify(resource.scope.map((name) => String(params[name] ?? '')))
}

function scopeOfKey(resource: Resource, key: string): Record<string, string> {
  const values = JSON.parse(key) as string[]
  return Object.fromEntries(resource.scope.map((name, index) => [name, values[index]!]))
}

function datasetOf(byName: ReadonlyMap<string, Resource>, sets: RecordSets): Dataset {
  const dataset: Dataset = { collections: new Map(), owned: new Set() }
  for (const [name, records] of Object.entries(sets)) {
    const resource = byName.get(name)
    if (resource) dataset.collections.set(name, collectionOf(resource, records))
  }
  return dataset
}

/** Records as shown and given (`$scope` on nested ones) into a collection; a record without a key gets one. */
function collectionOf(resource: Resource, records: readonly StoredRecord[]): Collection {
  const collection: Collection = new Map()
  for (const given of records) {
    const { [SCOPE_FIELD]: scopeValue, ...fields } = given as Record<string, unknown>
    const scope = scopeKeyOf(resource, (scopeValue ?? {}) as Record<string, unknown>)
    let stored: StoredRecord = carryExact(given, fields)
    let records = collection.get(scope)
    if (!records) collection.set(scope, (records = new Map()))
    let key = keyOf(stored[resource.idField], resource.idKind)
    if (key === undefined) {
      const id = assignId(resource.idKind, records)
      key = keyOf(id, resource.idKind)!
      stored = withKey(stored, resource.idField, id)
    }
    records.set(key, stored)
  }
  return collection
}

function setsOf(byName: ReadonlyMap<string, Resource>, dataset: Dataset, only?: string): RecordSets {
  const sets: RecordSets = {}
  for (const [name, resource] of byName) {
    if (only !== undefined && name !== only) continue
    const list: StoredRecord[] = []
    for (const [scope, records] of dataset.collections.get(name) ?? []) {
      for (const record of records.values())
        list.push(scope === '' ? record : carryExact(record, { [SCOPE_FIELD]: scopeOfKey(resource, scope), ...record }))
    }
    sets[name] = list
  }
  return sets
}
