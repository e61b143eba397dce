import { LosslessNumber, isSafeNumber, parse as parseLossless, stringify as stringifyLossless } from 'lossless-json'
import type { ListQuery, RecordPage } from '../state/list-page.js'
import type { RecordPlace, RecordSets, RecordStore, StoredRecord } from '../state/record-store.js'
import { markIfExact } from '../internal/exact-values.js'
import type { PrimaryLink } from './primary-link.js'
import { applyingEcho } from '../relay/relay-link.js'

/** A place as it crosses the channel: the resource by name (the primary has its own `Resource`s). */
export type WirePlace = [session: string | null, resource: string, scope: string]

/**
 * The record store of a worker of `--workers N`: every operation is one round trip to the one
 * in-memory store in the primary (`primary-records.ts`), so that a record created through one
 * worker is read through any other. Values cross as lossless JSON, integers beyond 2^53 exact.
 * A primary that does not answer in time gives the request a 503, never a hang.
 */
export function createIpcRecordStore(link: PrimaryLink): RecordStore {
  const ask = async (method: string, args: unknown[]): Promise<unknown> => {
    const answer = await link.call({ kind: 'records', payload: stringifyLossless([method, ...args])! }, 'a data call')
    return answer === undefined || answer === null ? undefined : readLossless(answer as string)
  }
  const place = ({ session, resource, scope }: RecordPlace): WirePlace => [session ?? null, resource.name, scope]
  return {
    create: async (at, record) => marked((await ask('create', [place(at), record])) as never, 'record'),
    read: async (at, id) => markIfExact((await ask('read', [place(at), id])) as StoredRecord | undefined),
    replace: async (at, id, record, how) =>
      marked((await ask('replace', [place(at), id, record, how])) as never, 'record'),
    merge: async (at, id, patch) =>
      markIfExact((await ask('merge', [place(at), id, patch])) as StoredRecord | undefined),
    remove: async (at, id) => markIfExact((await ask('remove', [place(at), id])) as StoredRecord | undefined),
    list: async (at, query: ListQuery) => {
      const page = (await ask('list', [place(at), query])) as RecordPage
      page.records.forEach(markIfExact)
      return page
    },
    get: async (session, resource) => {
      const sets = (await ask('get', [session ?? null, resource ?? null])) as RecordSets
      for (const records of Object.values(sets)) records.forEach(markIfExact)
      return sets
    },
    set: async (session, resource, records) => void (await ask('set', [session ?? null, resource, records])),
    reset: async (session) => {
      if (applyingEcho.getStore()) return
      await ask('reset', [session ?? null])
    },
    size: async () => (await ask('size', [])) as { sessions: number; records: number },
  }
}

/** Lossless JSON: integers beyond 2^53 as `LosslessNumber`, every other number a number, as the request path reads bodies. */
export function readLossless(text: string): unknown {
  return parseLossless(text, undefined, (literal) =>
    isSafeNumber(literal) ? Number(literal) : new LosslessNumber(literal),
  )
}

/** An outcome whose `field` is a record: marked when it holds an exact integer. */
function marked<T extends Record<string, unknown>>(outcome: T, field: string): T {
  if (outcome && outcome[field]) markIfExact(outcome[field])
  return outcome
}
