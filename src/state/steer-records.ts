import { errors } from '../errors.js'
import type { StatefulSetup } from './compile-stateful.js'
import type { RecordSets, StoredRecord } from './record-store.js'
import { exactBodyOf, markIfExact } from './record-values.js'
import type { RuntimeState } from './runtime-state.js'

/**
 * What the admin API (`/__mock/state`) and `mock.state` do with the data: read every resource's
 * records or one's, and replace one's with records checked as seed data is. A mock without
 * `--stateful` answers 409, an unknown resource 404, records that break the schema 400.
 */
export function readRecordSets(
  state: RuntimeState,
  stateful: StatefulSetup | undefined,
  session: string | undefined,
  resource?: string,
): RecordSets {
  if (resource !== undefined) checkerOf(stateful, resource)
  return recordsOf(state).get(session, resource)
}

/** `text`: the body as sent, read again where it holds integers beyond 2^53. */
export function replaceRecords(
  state: RuntimeState,
  stateful: StatefulSetup | undefined,
  where: { session: string | undefined; resource: string; caller: string },
  value: unknown,
  text?: string,
): RecordSets {
  const records = recordsOf(state)
  const problems = checkerOf(stateful, where.resource)(value)
  if (problems.length) throw errors.badRecords(where.caller, problems)
  const exact = text === undefined ? value : exactBodyOf(value, () => text)
  records.set(where.session, where.resource, (exact as StoredRecord[]).map(markIfExact))
  return records.get(where.session, where.resource)
}

function recordsOf(state: RuntimeState) {
  if (!state.records) throw errors.notStateful()
  return state.records
}

function checkerOf(stateful: StatefulSetup | undefined, resource: string) {
  if (!stateful) throw errors.notStateful()
  const check = stateful.checkers.get(resource)
  if (!check)
    throw errors.unknownResource(
      resource,
      stateful.resources.map((r) => r.name),
    )
  return check
}
