/**
 * The in-memory store's data (`memory-records.ts`): datasets of collections of records, shared with
 * the seed until written (copy on write), with the counts kept beside them, and the `$scope` of
 * nested records as shown and given.
 */
import type { RecordSets, StoredRecord } from './record-store.js'
import { INTEGER_KEY, assignId, highestIntegerKey, keyOf, withKey } from './record-values.js'
import { carryExact } from '../internal/exact-values.js'
import type { Resource } from './resource.js'

/** Records of one resource: scope → key → record, in creation order. */
export type Collection = Map<string, Map<string, StoredRecord>>

/**
 * One set of data (the one without a session, or a session's): resource name → collection. A session
 * starts sharing the seed's collections and copies one the first time it writes to it.
 */
export interface Dataset {
  collections: Map<string, Collection>
  /** Collections this dataset has copied, and may change. */
  owned: Set<string>
}

/** A dataset that shares every collection of `from` until it writes to one. */
export function fork(from: Dataset): Dataset {
  return { collections: new Map(from.collections), owned: new Set() }
}

/** Records a dataset's own collections hold (those it shares with the seed cost nothing more). */
export function ownedCountOf(dataset: Dataset): number {
  let count = 0
  for (const name of dataset.owned) count += countOf(dataset.collections.get(name)!)
  return count
}

/** The dataset's own copy of a collection, made on its first write (records are never changed in place, so they are shared). */
export function own(dataset: Dataset, resource: string): Collection {
  let collection = dataset.collections.get(resource)
  if (dataset.owned.has(resource) && collection) return collection
  const copy: Collection = new Map()
  for (const [scope, records] of collection ?? []) copy.set(scope, new Map(records))
  dataset.collections.set(resource, copy)
  dataset.owned.add(resource)
  return copy
}

/** `record` with the `fields` `from` has (the server's, which a replace keeps), as a new object where it changes. */
export function withFieldsOf(from: StoredRecord, fields: readonly string[], record: StoredRecord): StoredRecord {
  const carried = fields.filter((field) => from[field] !== undefined)
  if (carried.length === 0) return record
  const merged: Record<string, unknown> = carryExact(from, carryExact(record, { ...record }))
  for (const field of carried) merged[field] = from[field]
  return merged
}

/**
 * Kept beside the maps as records come and go, so that a create costs the same at 10 records as at
 * 10,000: how many records a collection holds (over all its scopes), and the highest integer key of
 * each scope. Each is counted once, when first asked, and forgotten when it cannot be kept up.
 */
const counts = new WeakMap<Collection, number>()
const highestKeys = new WeakMap<Map<string, StoredRecord>, bigint>()

export function countOf(collection: Collection): number {
  let count = counts.get(collection)
  if (count === undefined) {
    count = 0
    for (const records of collection.values()) count += records.size
    counts.set(collection, count)
  }
  return count
}

export function highestKeyOf(records: Map<string, StoredRecord>): bigint {
  let highest = highestKeys.get(records)
  if (highest === undefined) highestKeys.set(records, (highest = highestIntegerKey(records)))
  return highest
}

export function put(
  collection: Collection,
  records: Map<string, StoredRecord>,
  key: string,
  record: StoredRecord,
): void {
  const added = !records.has(key)
  records.set(key, record)
  if (!added) return
  const count = counts.get(collection)
  if (count !== undefined) counts.set(collection, count + 1)
  const highest = highestKeys.get(records)
  if (highest !== undefined && INTEGER_KEY.test(key) && BigInt(key) > highest) highestKeys.set(records, BigInt(key))
}

export function drop(collection: Collection, records: Map<string, StoredRecord>, key: string): void {
  if (!records.delete(key)) return
  const count = counts.get(collection)
  if (count !== undefined) counts.set(collection, count - 1)
  // The highest gone, the next one is found again when asked.
  if (INTEGER_KEY.test(key) && highestKeys.get(records) === BigInt(key)) highestKeys.delete(records)
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

export function datasetOf(byName: ReadonlyMap<string, Resource>, sets: RecordSets): Dataset {
  const dataset: Dataset = { collections: new Map(), owned: new Set() }
  for (const [name, records] of Object.entries(sets)) {
    const resource = byName.get(name)
    if (resource) dataset.collections.set(name, collectionOf(resource, records))
  }
  return dataset
}

/** Records as shown and given (`$scope` on nested ones) into a collection; a record without a key gets one. */
export function collectionOf(resource: Resource, records: readonly StoredRecord[]): Collection {
  const collection: Collection = new Map()
  for (const given of records) {
    const { [SCOPE_FIELD]: scopeValue, ...fields } = given as Record<string, unknown>
    const scope = scopeKeyOf(resource, (scopeValue ?? {}) as Record<string, unknown>)
    let stored: StoredRecord = carryExact(given, fields)
    let records = collection.get(scope)
    if (!records) collection.set(scope, (records = new Map()))
    let key = keyOf(stored[resource.idField], resource.idKind)
    if (key === undefined) {
      const scoped = records
      const id = assignId(resource.idKind, scoped, () => highestKeyOf(scoped))
      key = keyOf(id, resource.idKind)!
      stored = withKey(stored, resource.idField, id)
    }
    put(collection, records, key, stored)
  }
  return collection
}

export function setsOf(byName: ReadonlyMap<string, Resource>, dataset: Dataset, only?: string): RecordSets {
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
