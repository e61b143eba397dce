import { errors } from '../errors/index.js'
import { duplicateKeyProblems } from './check-records.js'
import type { StatefulSetup } from './compile-stateful.js'
import type { StoredRecord } from './record-store.js'
import { exactBodyOf, markIfExact } from '../internal/exact-values.js'

/**
 * What the admin API (`/__mock/state`) and `mock.state` check before they touch the data: a mock
 * without `--stateful` answers 409, an unknown resource 404, records that break the schema 400.
 */
export function storeOf<Store>(store: Store | undefined): Store {
  if (!store) throw errors.notStateful()
  return store
}

/** Throws unless the description implies this resource; answers its record check. */
export function checkResource(stateful: StatefulSetup | undefined, resource: string) {
  if (!stateful) throw errors.notStateful()
  const check = stateful.checkers.get(resource)
  if (!check)
    throw errors.unknownResource(
      resource,
      stateful.resources.map((r) => r.name),
    )
  return check
}

/**
 * Records given for a resource, checked as seed data is (400 naming the record and field), ready to
 * store; `text`: the body as sent, read again where it holds integers beyond 2^53.
 */
export function checkedRecords(
  stateful: StatefulSetup | undefined,
  resource: string,
  caller: string,
  value: unknown,
  text?: string,
): StoredRecord[] {
  const problems = checkResource(stateful, resource)(value)
  if (problems.length) throw errors.badRecords(caller, problems)
  const exact = text === undefined ? value : exactBodyOf(value, () => text)
  const records = (exact as StoredRecord[]).map(markIfExact)
  const duplicates = duplicateKeyProblems(
    stateful!.resources.find((r) => r.name === resource)!,
    records,
  )
  if (duplicates.length) throw errors.badRecords(caller, duplicates)
  return records
}
