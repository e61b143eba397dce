import type { Redis } from 'ioredis'
import type { SharedRecordsSetup } from '../engine/shared-store.js'
import { errors } from '../errors/index.js'
import { utf8ByteLength } from '../internal/bytes.js'
import { exactBodyOf, serializeRecord } from '../internal/exact-values.js'
import { type Collection, collectionOf, datasetOf, setsOf } from '../state/datasets.js'
import { pageRecords } from '../state/list-page.js'
import type { CreateOutcome, RecordPlace, RecordStore, ReplaceOutcome, StoredRecord } from '../state/record-store.js'
import { idValueOf, keyOf, mergePatch, withKey } from '../state/record-values.js'
import type { Resource } from '../state/resource.js'
import { withFieldsOf } from '../state/datasets.js'
import { carryExact } from '../internal/exact-values.js'
import type { RedisCommands } from './redis-commands.js'
import { applyingEcho } from '../relay/relay-link.js'

/** Tries of a replace or merge whose record another replica changed between the read and the write. */
const MAX_TRIES = 8

/** Where the store's calls go, and how long a session's data lives after its last write. */
export interface RedisRecordsContext {
  redis: Redis & RedisCommands
  prefix: string
  sessionTtlMs: number
  /** Turns a failed command into the 503 the client gets (`storeUnavailable`). */
  guard<T>(work: Promise<T>): Promise<T>
}

/**
 * The records of `--stateful` in Redis (#32): a resource's records of one session (or of the data
 * without a session) are one collection, its keys under the store's prefix; every write is one Lua
 * script (`record-scripts.ts`), atomic across replicas, and answered only once Redis has it. A
 * collection is the seed's until written: reads of it are answered from the seed here, and the
 * first write copies the seed in. Sessions' data expires `sessionTtlMs` after its last write.
 */
export function createRedisRecords(context: RedisRecordsContext, setup: SharedRecordsSetup): RecordStore {
  const { redis, prefix, sessionTtlMs, guard } = context
  const { resources, limit, maxSessions } = setup
  const byName = new Map(resources.map((resource) => [resource.name, resource]))
  const seed = datasetOf(byName, setup.seed)
  const names = resources.map((resource) => resource.name)
  const sessionsKey = `${prefix}:sessions`

  const keysOf = (session: string | undefined, resource: string) => {
    const part = session === undefined ? `${prefix}:-:` : `${prefix}:=${utf8ByteLength(session)}:${session}:`
    return [`${part}meta:${resource}`, `${part}rec:${resource}`, `${part}ord:${resource}`, sessionsKey]
  }
  const keysAt = (place: RecordPlace) => keysOf(place.session, place.resource.name)
  const life = (session: string | undefined) => [sessionTtlMs, Date.now(), session ?? '']
  const seedAt = ({ resource, scope }: RecordPlace) => seed.collections.get(resource.name)?.get(scope)

  /** Copies the seed into a collection still the seed's (another replica may have done it first). */
  const fork = async (session: string | undefined, resource: string) => {
    const pairs: string[] = []
    for (const [scope, records] of seed.collections.get(resource) ?? [])
      for (const [key, record] of records) pairs.push(`${scope}\n${key}`, textOf(record))
    await guard(redis.fillRecords(keysOf(session, resource), ...fillArgs(session, '1', pairs)))
  }
  const fillArgs = (session: string | undefined, onlyIfNotOwned: string, pairs: string[]) => [
    ...life(session),
    maxSessions,
    prefix,
    onlyIfNotOwned,
    names.length,
    ...names,
    ...pairs,
  ]
  /** Runs a write, copying the seed in first when the collection is still the seed's. */
  const writing = async <T>(place: RecordPlace, write: () => Promise<T>, forks: (answer: T) => boolean) => {
    const answer = await guard(write())
    if (!forks(answer)) return answer
    await fork(place.session, place.resource.name)
    return guard(write())
  }
  /** The record under `id` and its JSON as stored (what a compare-and-set expects), or none. */
  const readText = async (place: RecordPlace, id: string): Promise<[StoredRecord, string] | undefined> => {
    const answer = (await guard(redis.readRecord(keysAt(place), `${place.scope}\n${id}`, ...life(place.session)))) as [
      number,
      string?,
    ]
    if (answer[0] === 0) {
      const record = seedAt(place)?.get(id)
      return record && [record, textOf(record)]
    }
    return answer[1] === undefined ? undefined : [recordOf(answer[1]), answer[1]]
  }
  /** Writes `make(existing)` under `id`, read and written again while another replica changed it between. */
  const compareAndSet = async (
    place: RecordPlace,
    id: string,
    make: (existing: StoredRecord | undefined) => StoredRecord | undefined,
  ): Promise<{ existing?: StoredRecord; record?: StoredRecord; full?: true }> => {
    for (let tries = 0; tries < MAX_TRIES; tries++) {
      const read = await readText(place, id)
      const record = make(read?.[0])
      if (!record) return {}
      const args = [`${place.scope}\n${id}`, read?.[1] ?? '', textOf(record), limit, ...life(place.session)]
      const answer = await writing(
        place,
        () => redis.compareAndSet(keysAt(place), ...args),
        (done) => done === 'FORK',
      )
      if (answer === 'ok') return { existing: read?.[0], record }
      if (answer === 'full') return { full: true }
    }
    throw errors.storeBusy(place.resource.name, id)
  }
  /** A collection's records in creation order (every scope, or one), from Redis or the seed. */
  const collectionAt = async (session: string | undefined, resource: Resource, scope?: string) => {
    const answer = (await guard(
      redis.listRecords(keysOf(session, resource.name), scope ?? '', scope === undefined ? '1' : '0', ...life(session)),
    )) as [number, ...string[]]
    if (answer[0] === 0) return seed.collections.get(resource.name)
    const collection: Collection = new Map()
    for (let i = 1; i < answer.length; i += 2) {
      const field = answer[i] as string
      const cut = field.indexOf('\n')
      const at = field.slice(0, cut)
      let records = collection.get(at)
      if (!records) collection.set(at, (records = new Map()))
      records.set(field.slice(cut + 1), recordOf(answer[i + 1] as string))
    }
    return collection
  }

  return {
    async create(place, record): Promise<CreateOutcome> {
      const { resource } = place
      const key = keyOf(record[resource.idField], resource.idKind)
      if (key !== undefined) {
        const answer = await writing(
          place,
          () =>
            redis.createKeyed(keysAt(place), `${place.scope}\n${key}`, textOf(record), limit, ...life(place.session)),
          (done) => done === 'FORK',
        )
        if (answer === 'exists') return { outcome: 'exists', id: key }
        if (answer === 'full') return { outcome: 'full', limit }
        return { outcome: 'created', id: key, record }
      }
      const [head, tail] = keylessParts(record, resource.idField)
      for (let tries = 0; tries < MAX_TRIES; tries++) {
        const uuid = resource.idKind === 'uuid' ? crypto.randomUUID() : ''
        const args = [place.scope, resource.idKind, head, tail, limit, ...life(place.session), uuid]
        const answer = (await writing(
          place,
          () => redis.createUnkeyed(keysAt(place), ...args),
          (done) => (done as string[])[0] === 'FORK',
        )) as string[]
        if (answer[0] === 'full') return { outcome: 'full', limit }
        if (answer[0] === 'created') {
          const id = answer[1]!
          return { outcome: 'created', id, record: withKey(record, resource.idField, idValueOf(id, resource.idKind)) }
        }
      }
      throw errors.storeBusy(resource.name, 'new')
    },
    read: async (place, id) => (await readText(place, id))?.[0],
    async replace(place, id, given, { createsIfAbsent, kept }): Promise<ReplaceOutcome> {
      let missing = false
      const done = await compareAndSet(place, id, (existing) => {
        missing = !existing && !createsIfAbsent
        if (missing) return undefined
        return existing ? withFieldsOf(existing, kept, given) : given
      })
      if (missing) return { outcome: 'missing' }
      if (done.full) return { outcome: 'full', limit }
      return { outcome: done.existing ? 'replaced' : 'created', record: done.record! }
    },
    async merge(place, id, patch) {
      const done = await compareAndSet(place, id, (existing) => {
        if (!existing) return undefined
        const merged = carryExact(existing, mergePatch(existing, patch) as Record<string, unknown>)
        // The key stays what the path says, whatever the patch.
        merged[place.resource.idField] = existing[place.resource.idField]
        return merged
      })
      return done.record
    },
    async remove(place, id) {
      const answer = (await writing(
        place,
        () => redis.removeRecord(keysAt(place), `${place.scope}\n${id}`, ...life(place.session)),
        (done) => (done as string[])[0] === 'FORK',
      )) as string[]
      return answer[0] === 'removed' ? recordOf(answer[1]!) : undefined
    },
    async list(place, query) {
      const collection = await collectionAt(place.session, place.resource, place.scope)
      return pageRecords(collection?.get(place.scope)?.values() ?? [], query)
    },
    async get(session, only) {
      const dataset = { collections: new Map<string, Collection>(), owned: new Set<string>() }
      for (const resource of resources) {
        if (only !== undefined && resource.name !== only) continue
        const collection = await collectionAt(session, resource)
        if (collection) dataset.collections.set(resource.name, collection)
      }
      return setsOf(byName, dataset, only)
    },
    async set(session, name, records) {
      const pairs: string[] = []
      for (const [scope, kept] of collectionOf(byName.get(name)!, records))
        for (const [key, record] of kept) pairs.push(`${scope}\n${key}`, textOf(record))
      await guard(redis.fillRecords(keysOf(session, name), ...fillArgs(session, '0', pairs)))
    },
    async reset(session) {
      // A reset another replica received is applied here too (`replicas.ts`): the data it drops is shared, dropped once.
      if (applyingEcho.getStore()) return
      const which = session === undefined ? ['all', ''] : ['one', session]
      await guard(redis.dropRecords([sessionsKey], prefix, ...which, names.length, ...names))
    },
    async size() {
      const seeded = resources.flatMap((resource) => {
        let count = 0
        for (const records of seed.collections.get(resource.name)?.values() ?? []) count += records.size
        return [resource.name, count]
      })
      const [sessions, records] = (await guard(
        redis.sizeOfRecords([sessionsKey, prefix], sessionTtlMs, Date.now(), resources.length, ...seeded),
      )) as [number, number]
      return { sessions, records }
    },
  }
}

/** A record as stored: JSON, integers beyond 2^53 exact. */
function textOf(record: StoredRecord): string {
  return serializeRecord(record).text
}

/** A stored record read back, integers beyond 2^53 exact (and marked so). */
function recordOf(text: string): StoredRecord {
  return exactBodyOf(JSON.parse(text), () => text) as StoredRecord
}

/** A keyless record's JSON around where its key goes (the script writes the key it assigns between). */
function keylessParts(record: StoredRecord, idField: string): [string, string] {
  const { [idField]: _absent, ...rest } = record as Record<string, unknown>
  const text = textOf(carryExact(record, rest))
  const open = text.length > 2 ? `${text.slice(0, -1)},` : '{'
  return [`${open}${JSON.stringify(idField)}:`, '}']
}
