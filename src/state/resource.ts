/**
 * What stateful mode (`--stateful`) reads of the description: resources, found at start-up
 * (`inferResources`), and what each operation does to one. Plain data, built once.
 */

/** What an operation does to its resource's records. */
export type RecordAction = 'create' | 'list' | 'read' | 'replace' | 'merge' | 'remove'

/** How a key the mock assigns is made: the next integer, a uuid, or a short unique string. */
export type IdKind = 'integer' | 'uuid' | 'string'

/** A collection path (`/plants`) and its item path (`/plants/{plantId}`), either or both. */
export interface Resource {
  /** `plants`: the collection's last literal segment; where two collections share it, their literal segments joined (`orgs/repos`). */
  name: string
  collectionPath?: string
  itemPath?: string
  /** Path parameters before the collection's last segment (`orgId` of `/orgs/{orgId}/repos`): records are kept apart by their values. */
  scope: string[]
  /** The item path's last parameter (`plantId`), when there is an item path. */
  idParameter?: string
  /** The record field that holds its key: the body field named like `idParameter` if the create schema declares one, else `id` (or `x-mock-resource`'s `id`). */
  idField: string
  idKind: IdKind
  /** The schema a record is checked against (seed data, `PUT /__mock/state/{resource}`): the create body's, else the replace body's. */
  recordSchemaPointer?: string
  /** Property names the resource's request and response schemas declare: list filters may name only these. */
  fields: string[]
  /** Operation ids by action, for the start-up line and `GET /__mock/state`. */
  operations: Partial<Record<RecordAction, string>>
}

/** One operation of a resource, compiled into `CompiledOperation.stateful`. */
export interface StatefulOperation {
  resource: Resource
  action: RecordAction
  /** `replace` of an absent key creates it: only when the operation declares a 201. */
  createsIfAbsent?: boolean
}
