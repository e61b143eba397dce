import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import type { Logger } from '../common/log.js'
import { errors, startupErrors } from '../errors/index.js'
import { type FromWorker, SLOTS } from '../relay/merge-reads.js'
import type { RelayLink } from '../relay/relay-link.js'
import type { Gather, Relayed, WireRequest } from '../relay/wire.js'
import type { RedisStore } from './open-redis-store.js'

/** How long an admin write waits for every replica to apply it, and a read for every replica's part. */
const RELAY_WAIT_MS = 5000
/** Bytes of admin writes the log keeps for replicas that start later, as the primary of `--workers` keeps; beyond, the oldest go. */
const LOG_BYTES = 64 * 1024 * 1024

/** A replica's slot (the last 6 bits of its journal's ids) is leased, and renewed well before the lease ends. */
const SLOT_LEASE_MS = 30_000
const SLOT_RENEW_MS = 10_000
/** A replica's part of a gather waits in Redis this long for the one that asked to read it. */
const ANSWER_MS = 30_000
/** The log is read this many entries at a time, each read blocking this long for new ones. */
const READ_COUNT = 100
const READ_BLOCK_MS = 1000

/** One process among the replicas on a shared store (`--store`, #32). */
export interface Replica {
  /** `host:pid`: what the journal names a request's replica by. */
  name: string
  /** 0 to 63, unique among the replicas up: the journal's ids end in it, as a worker's do. */
  slot: number
  /** Admin writes to every replica, in one order; admin reads gathered from every replica. */
  link: RelayLink
  close(): Promise<void>
}

/** An admin write in the log: who received it, its own id, and the request. */
type Logged = { from: string; write: string; request: WireRequest }
/** What one replica tells another on its own channel. */
type Told = { applied: string; slot: number; error?: string } | { answered: string; slot: number; error?: string }
/** A gather on the replicas' channel. */
type Asked = { gather: string; from: string; what: Gather }

interface Waiting {
  /** How many other replicas answer: known once the write is logged or the gather sent. */
  expected?: number
  answers: Array<{ slot: number; error?: string }>
  /** A write waits for this replica's own answer too, which its reading of the log gives. */
  needsOwn: boolean
  own?: { value?: unknown; error?: Error }
  done(): void
}

/** Done once every replica expected has answered (and this one, for a write). */
function check(entry: Waiting): void {
  if (entry.expected === undefined || entry.answers.length < entry.expected) return
  if (entry.needsOwn && !entry.own) return
  entry.done()
}

/**
 * Joins the replicas on the store, as the workers of `--workers` share one mock through their primary,
 * with Redis in the primary's place. An admin write (a scenario switch, a stub, a reset) is appended
 * to a log (a Redis stream) and every replica applies the log in its order, so stub ids agree; the
 * write is answered once every replica up has applied it, so a switch made through one replica is in
 * force on all of them before the caller's next request. Admin reads (the journal, deliveries,
 * coverage, stub hits) are gathered from every replica: each writes its part to a key and says so
 * on the asker's channel. A replica that starts later applies the log before it serves. `answer`
 * applies a write or answers a gather through this replica's own handler.
 */
export async function joinReplicas(
  store: RedisStore,
  answer: (relayed: Relayed) => Promise<unknown>,
  logger: Logger,
  { joined }: { joined(slot: number, name: string): void },
): Promise<Replica> {
  const { redis, prefix } = store
  const id = randomUUID()
  const name = `${hostname()}:${process.pid}`
  const logKey = `${prefix}:admin`
  const everyone = `${prefix}:replicas`
  const mine = `${prefix}:to:${id}`
  const slot = await claimSlot(store, id)
  joined(slot, name)
  const waiting = new Map<string, Waiting>()
  let closed = false

  const tell = (to: string, told: Told) =>
    void redis.publish(`${prefix}:to:${to}`, JSON.stringify(told)).catch(() => {})

  const hear = redis.duplicate({ enableOfflineQueue: true, lazyConnect: true })
  hear.on('error', () => {})
  hear.on('message', (channel: string, text: string) => {
    if (channel === mine) return heard(JSON.parse(text) as Told)
    const asked = JSON.parse(text) as Asked
    if (asked.from !== id) void answerGather(asked)
  })
  await store.guard(hear.connect().then(() => hear.subscribe(everyone, mine)))

  function heard(told: Told): void {
    const key = 'applied' in told ? told.applied : told.answered
    const entry = waiting.get(key)
    if (!entry) return
    entry.answers.push({ slot: told.slot, error: told.error })
    check(entry)
  }

  async function answerGather({ gather, from, what }: Asked): Promise<void> {
    try {
      const value = await answer({ kind: 'gather', gather: what })
      await redis.set(`${prefix}:answer:${gather}:${slot}`, JSON.stringify(value), 'PX', ANSWER_MS)
      tell(from, { answered: gather, slot })
    } catch (error) {
      tell(from, { answered: gather, slot, error: (error as Error).message })
    }
  }

  // The log: read from its start (what was written before this replica joined), then as it grows.
  const read = redis.duplicate({ enableOfflineQueue: true, lazyConnect: true, commandTimeout: READ_BLOCK_MS + 2000 })
  read.on('error', () => {})
  await store.guard(read.connect())
  let last = '0'
  const applyEntry = async (entryId: string, fields: string[]) => {
    last = entryId
    const logged = JSON.parse(fields[1]!) as Logged
    const own = logged.from === id
    try {
      const result = await answer({ kind: 'apply', request: logged.request, echo: !own })
      if (own) settleOwn(logged.write, result)
      else tell(logged.from, { applied: logged.write, slot })
    } catch (error) {
      if (own) settleOwn(logged.write, undefined, error as Error)
      else tell(logged.from, { applied: logged.write, slot, error: (error as Error).message })
    }
  }
  const readSome = async (block: boolean): Promise<number> => {
    const args = block ? ['BLOCK', READ_BLOCK_MS] : []
    const answer = (await read.xread('COUNT', READ_COUNT, ...(args as []), 'STREAMS', logKey, last)) as Array<
      [string, Array<[string, string[]]>]
    > | null
    const entries = answer?.[0]?.[1] ?? []
    for (const [entryId, fields] of entries) await applyEntry(entryId, fields)
    return entries.length
  }
  // Every earlier write applied before this replica answers anything.
  while ((await store.guard(readSome(false))) === READ_COUNT);
  const following = (async () => {
    let pause = 100
    while (!closed) {
      try {
        await readSome(true)
        pause = 100
      } catch {
        // The store is away (its loss is logged once by the store): try again, less often.
        if (closed) return
        await new Promise((resolve) => setTimeout(resolve, pause).unref())
        pause = Math.min(pause * 2, 5000)
      }
    }
  })()

  function settleOwn(write: string, result: unknown, error?: Error): void {
    const entry = waiting.get(write)
    if (!entry) return
    entry.own = error ? { error } : { value: result }
    check(entry)
  }

  /** Waits for `entry` to be done, at most `RELAY_WAIT_MS`; true when it was. */
  const waitFor = (key: string, entry: Waiting): Promise<boolean> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), RELAY_WAIT_MS)
      entry.done = () => (clearTimeout(timer), resolve(true))
    }).finally(() => waiting.delete(key)) as Promise<boolean>

  const renewal = setInterval(() => void renewSlot(store, id, slot, logger), SLOT_RENEW_MS)
  renewal.unref()

  const link: RelayLink = {
    async call(call, what) {
      if (call.kind === 'write') {
        const write = randomUUID()
        const entry: Waiting = { answers: [], needsOwn: true, done: () => {} }
        waiting.set(write, entry)
        const done = waitFor(write, entry)
        const logged: Logged = { from: id, write, request: call.request }
        try {
          await store.guard(
            redis.appendWrite([logKey, `${logKey}:bytes`], JSON.stringify(logged), LOG_BYTES, store.sessionTtlMs),
          )
          // Every replica up listens on the replicas' channel: each but this one says it has applied the write.
          const [, listening] = (await store.guard(redis.pubsub('NUMSUB', everyone))) as [string, number]
          entry.expected = Number(listening) - 1
          check(entry)
        } catch (error) {
          waiting.delete(write)
          throw error
        }
        await done
        const { own } = entry
        if (own?.error) throw own.error
        if (!own) throw errors.storeUnavailable(store.where, `this replica did not apply ${what} in time`)
        const missing = entry.expected! - entry.answers.length
        const failed = entry.answers.filter((answer) => answer.error !== undefined)
        if (missing > 0)
          logger.warn(
            `${what} was applied here, but ${missing} other replica(s) did not say they had within ${RELAY_WAIT_MS / 1000} s`,
          )
        else if (failed.length)
          logger.warn(`${what} was applied here, but failed on ${failed.length} other replica(s): ${failed[0]!.error}`)
        return own.value
      }
      const gather = `${id}:${randomUUID()}`
      const entry: Waiting = { answers: [], needsOwn: false, done: () => {} }
      waiting.set(gather, entry)
      const done = waitFor(gather, entry)
      const asked: Asked = { gather, from: id, what: call.gather }
      let listening: number
      try {
        listening = await store.guard(redis.publish(everyone, JSON.stringify(asked)))
      } catch (error) {
        waiting.delete(gather)
        throw error
      }
      entry.expected = listening - 1
      check(entry)
      if (!(await done))
        logger.warn(
          `${what}: ${entry.expected - entry.answers.length} replica(s) did not answer within ${RELAY_WAIT_MS / 1000} s; answered without them`,
        )
      const answered = entry.answers.filter((answer) => answer.error === undefined)
      if (answered.length === 0) return []
      const keys = answered.map((answer) => `${prefix}:answer:${gather}:${answer.slot}`)
      const texts = await store.guard(redis.mget(...keys))
      void redis.unlink(...keys).catch(() => {})
      return answered.flatMap(({ slot }, index): Array<FromWorker<unknown>> => {
        const text = texts[index]
        return text ? [{ slot, value: JSON.parse(text) }] : []
      })
    },
  }

  return {
    name,
    slot,
    link,
    async close() {
      closed = true
      clearInterval(renewal)
      read.disconnect()
      hear.disconnect()
      await following
      await redis.releaseSlot([slotKey(prefix, slot)], id).catch(() => {})
    },
  }
}

const slotKey = (prefix: string, slot: number) => `${prefix}:slot:${slot}`

/** The first free slot, leased to this replica; none free (64 replicas up) stops the start. */
async function claimSlot(store: RedisStore, id: string): Promise<number> {
  for (let slot = 0; slot < SLOTS; slot++) {
    const taken = await store.guard(store.redis.set(slotKey(store.prefix, slot), id, 'PX', SLOT_LEASE_MS, 'NX'))
    if (taken === 'OK') return slot
  }
  throw startupErrors.storeReplicasFull(store.where, SLOTS)
}

/** Keeps the lease while it is this replica's (`RENEW_SLOT`); warns when another took it meanwhile. */
async function renewSlot(store: RedisStore, id: string, slot: number, logger: Logger): Promise<void> {
  const renewed = await store.redis.renewSlot([slotKey(store.prefix, slot)], id, SLOT_LEASE_MS).catch(() => undefined)
  if (renewed === 0)
    logger.warn(
      `replica slot ${slot} was taken by another replica while the store was away: journal ids of the two may repeat until one restarts`,
    )
}
