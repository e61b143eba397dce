import type { ListQuery, RecordPage } from './list-page.js'
import type { Resource } from './resource.js'

/** A record as kept: a JSON object, never changed in place (a write stores a new object). */
export type StoredRecord = Readonly<Record<string, unknown>>

/** Records of a resource: the data without a session, or one session's; `scope` keeps a nested resource's parents apart. */
export interface RecordPlace {
  session: string | undefined
  resource: Resource
  /** The scope parameters' values (`scopeKeyOf`); `''` for a top-level resource. */
  scope: string
}

export type CreateOutcome =
  | { outcome: 'created'; id: string; record: StoredRecord }
  | { outcome: 'exists'; id: string }
  | { outcome: 'full'; limit: number }

export type ReplaceOutcome =
  | { outcome: 'replaced' | 'created'; record: StoredRecord }
  | { outcome: 'missing' }
  | { outcome: 'full'; limit: number }

export interface ReplaceHow {
  createsIfAbsent: boolean
  kept: readonly string[]
}

/** What `GET /__mock/state` shows and `PUT` takes: resource name → records, a nested resource's records with their scope under `$scope`. */
export type RecordSets = Record<string, StoredRecord[]>

/** What a store answers: the in-memory store at once, a shared one (over the network) with a promise. */
export type Awaitable<T> = T | Promise<T>

/**
 * The data of stateful mode, as whole operations: nothing the pipeline holds refers into the store, and
 * every answer may be a promise, so that a store shared by several replicas can stand in for the
 * in-memory one (`memory-records.ts`, whose answers come at once).
 */
export interface RecordStore {
  /** Stores a new record; a record without its key gets one (`resource.idKind`). */
  create(place: RecordPlace, record: StoredRecord): Awaitable<CreateOutcome>
  /** `id`: a key as `pathKeyOf` writes it (`7`, not `7.0`; a uuid in lower case), here and below. */
  read(place: RecordPlace, id: string): Awaitable<StoredRecord | undefined>
  /**
   * Replaces the record under `id` (its key field set to `id`), keeping the replaced record's `kept`
   * fields (the server's: a `createdAt`); an absent one is created only when `createsIfAbsent`.
   */
  replace(place: RecordPlace, id: string, record: StoredRecord, how: ReplaceHow): Awaitable<ReplaceOutcome>
  /** JSON merge patch (RFC 7386) of the record under `id`; its key stays. `undefined` when there is none. */
  merge(place: RecordPlace, id: string, patch: unknown): Awaitable<StoredRecord | undefined>
  /** Removes and returns the record under `id`. */
  remove(place: RecordPlace, id: string): Awaitable<StoredRecord | undefined>
  /** One page of the records of a place, in creation order. */
  list(place: RecordPlace, query: ListQuery): Awaitable<RecordPage>
  /** Every resource's records (or one's), of the data without a session or of one session. */
  get(session: string | undefined, resource?: string): Awaitable<RecordSets>
  /** Replaces one resource's records (already checked against its schema). */
  set(session: string | undefined, resource: string, records: readonly StoredRecord[]): Awaitable<void>
  /** Back to the seed: everything (sessions forgotten), or one session's data. */
  reset(session?: string): Awaitable<void>
  /** Sessions with data of their own, and records kept in all. */
  size(): Awaitable<{ sessions: number; records: number }>
}
