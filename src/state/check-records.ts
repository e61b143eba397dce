import type { ValidateFunction } from 'ajv'
import { isPlainObject } from '../internal/plain-object.js'
import { toViolations } from '../validation/violations.js'
import { SCOPE_FIELD, scopeKeyOf } from './datasets.js'
import { keyOf } from './record-values.js'
import type { Resource } from './resource.js'

/** Checks one resource's records: compiled once per resource, with the validator of its record schema (none: any object). */
export type RecordChecker = (records: unknown) => string[]

/**
 * What is wrong with records given for a resource (seed data, `PUT /__mock/state/{resource}`), each
 * problem naming the record's index and the field: `[1].name must be string`. A nested resource's
 * records carry their parents in `$scope`.
 */
export function compileRecordChecker(resource: Resource, validate: ValidateFunction | undefined): RecordChecker {
  return (records) => {
    if (!Array.isArray(records)) return ['must be an array of records']
    const problems: string[] = []
    records.forEach((record, index) => {
      if (!isPlainObject(record)) return void problems.push(`[${index}] must be an object`)
      const { [SCOPE_FIELD]: scope, ...fields } = record
      problems.push(...scopeProblems(resource, scope).map((problem) => `[${index}].${SCOPE_FIELD} ${problem}`))
      if (validate && !validate(fields))
        for (const { path, message } of toViolations('', validate.errors)) problems.push(`[${index}]${path} ${message}`)
    })
    return problems
  }
}

/**
 * Records that share a key in one scope, which the store would keep one of: `[2].id must be unique: 1
 * is the key of [0] too`. Read on the records as stored, so integers beyond 2^53 that round alike
 * (`9223372036854775807`, `…806`) are two keys.
 */
export function duplicateKeyProblems(resource: Resource, records: readonly unknown[]): string[] {
  const first = new Map<string, number>()
  const problems: string[] = []
  records.forEach((record, index) => {
    if (!isPlainObject(record)) return
    const key = keyOf(record[resource.idField], resource.idKind)
    if (key === undefined) return
    const scope = isPlainObject(record[SCOPE_FIELD]) ? record[SCOPE_FIELD] : {}
    const place = JSON.stringify([scopeKeyOf(resource, scope), key])
    const taken = first.get(place)
    if (taken === undefined) first.set(place, index)
    else problems.push(`[${index}].${resource.idField} must be unique: ${key} is the key of [${taken}] too`)
  })
  return problems
}

function scopeProblems(resource: Resource, scope: unknown): string[] {
  if (resource.scope.length === 0)
    return scope === undefined ? [] : [`is not taken: ${resource.name} is not nested in another resource`]
  if (!isPlainObject(scope)) return [`must be an object naming ${resource.scope.join(', ')}`]
  return resource.scope
    .filter((name) => typeof scope[name] !== 'string' && typeof scope[name] !== 'number')
    .map((name) => `must name ${name}`)
}
