import type { MemoryRecordStore } from '../state/memory-records.js'
import type { RecordPlace } from '../state/record-store.js'
import type { Resource } from '../state/resource.js'
import { type WirePlace, readLossless } from './ipc-record-store.js'
import { stringify as stringifyLossless } from 'lossless-json'

/**
 * The primary's side of the workers' record stores (`ipc-record-store.ts`): one call on the one
 * in-memory store, answered as lossless JSON. The store's own writer saves `--state-file`, here only.
 */
export function createRecordsServer(store: MemoryRecordStore, resources: readonly Resource[]) {
  const byName = new Map(resources.map((resource) => [resource.name, resource]))
  const placeOf = ([session, name, scope]: WirePlace): RecordPlace => {
    const resource = byName.get(name)
    if (!resource) throw new Error(`There is no resource "${name}".`)
    return { session: session ?? undefined, resource, scope }
  }
  const orUndefined = (value: unknown) => (value === null ? undefined : value)
  /** Answers `[method, ...args]`; the answer is lossless JSON, or undefined. */
  return (payload: string): string | undefined => {
    const [method, ...args] = readLossless(payload) as [string, ...any[]]
    let answer: unknown
    switch (method) {
      case 'create':
        answer = store.create(placeOf(args[0]), args[1])
        break
      case 'read':
        answer = store.read(placeOf(args[0]), args[1])
        break
      case 'replace':
        answer = store.replace(placeOf(args[0]), args[1], args[2], args[3])
        break
      case 'merge':
        answer = store.merge(placeOf(args[0]), args[1], args[2])
        break
      case 'remove':
        answer = store.remove(placeOf(args[0]), args[1])
        break
      case 'list':
        answer = store.list(placeOf(args[0]), args[1])
        break
      case 'get':
        answer = store.get(orUndefined(args[0]) as string | undefined, orUndefined(args[1]) as string | undefined)
        break
      case 'set':
        answer = store.set(orUndefined(args[0]) as string | undefined, args[1], args[2])
        break
      case 'reset':
        answer = store.reset(orUndefined(args[0]) as string | undefined)
        break
      case 'size':
        answer = store.size()
        break
      default:
        throw new Error(`The record store has no operation "${method}".`)
    }
    return answer === undefined ? undefined : stringifyLossless(answer)
  }
}
