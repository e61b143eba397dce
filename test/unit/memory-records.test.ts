/** The in-memory record store (`src/state/memory-records.ts`, #15): sessions from the seed, and its bounds. */
import { describe, expect, it } from 'vitest'
import { createMemoryRecords } from '../../src/state/memory-records.js'
import type { Resource } from '../../src/state/resource.js'

const plants: Resource = {
  name: 'plants',
  collectionPath: '/plants',
  itemPath: '/plants/{plantId}',
  scope: [],
  idParameter: 'plantId',
  idField: 'id',
  idKind: 'integer',
  fields: ['id', 'name'],
  operations: {},
}

function store(options: { maxSessionRecords?: number; seed?: Array<Record<string, unknown>> } = {}) {
  return createMemoryRecords({
    resources: [plants],
    seed: { plants: options.seed ?? [] },
    limit: 100,
    maxSessions: 100,
    maxSessionRecords: options.maxSessionRecords ?? 1_000,
  })
}

const at = (session?: string) => ({ session, resource: plants, scope: '' })
const ids = (records: Array<Record<string, unknown>> | undefined) => (records ?? []).map((record) => record.id)

describe('the in-memory record store', () => {
  it('starts each session from the seed, and copies it only when the session writes', () => {
    const records = store({ seed: [{ id: 1, name: 'Fern' }] })
    records.create(at('a'), { name: 'Ivy' })
    expect(ids(records.get('a').plants)).toEqual([1, 2])
    expect(ids(records.get('b').plants)).toEqual([1])
    expect(ids(records.get(undefined).plants)).toEqual([1])
    // The seed copied into session a counts as its data, with the plant it added.
    expect(records.size()).toEqual({ sessions: 1, records: 3 })
  })

  it("drops the least recently used sessions' data when all sessions together hold more than their bound", () => {
    const records = store({ maxSessionRecords: 5 })
    for (const name of ['A', 'B', 'C']) records.create(at('a'), { name })
    for (const name of ['D', 'E']) records.create(at('b'), { name })
    records.read(at('a'), '1') // a is now the more recently used
    records.create(at('c'), { name: 'F' })
    // Six records in all: b, the least recently used, goes; a and c stay.
    expect(ids(records.get('b').plants)).toEqual([])
    expect(ids(records.get('a').plants)).toEqual([1, 2, 3])
    expect(ids(records.get('c').plants)).toEqual([1])
    expect(records.size()).toEqual({ sessions: 2, records: 4 })
  })

  it('counts a removed record out, so that the bound is what the sessions hold now', () => {
    const records = store({ maxSessionRecords: 3 })
    for (const name of ['A', 'B', 'C']) records.create(at('a'), { name })
    records.remove(at('a'), '1')
    records.create(at('b'), { name: 'D' })
    expect(ids(records.get('a').plants)).toEqual([2, 3])
    expect(ids(records.get('b').plants)).toEqual([1])
  })

  it('never drops the data without a session, nor the session that is writing', () => {
    const records = store({ maxSessionRecords: 2 })
    for (const name of ['A', 'B', 'C', 'D']) records.create(at(), { name })
    for (const name of ['A', 'B', 'C']) records.create(at('a'), { name })
    expect(ids(records.get(undefined).plants)).toEqual([1, 2, 3, 4])
    expect(ids(records.get('a').plants)).toEqual([1, 2, 3])
  })
})
