import { requestSession } from '../common/request.js'
import type { CompiledOperation } from '../engine/compile-operation.js'
import { errors } from '../errors/index.js'
import { isPlainObject } from '../internal/plain-object.js'
import type { DeclaredMedia } from '../responses/declared-responses.js'
import type { RenderContext } from '../responses/render-response.js'
import { type ResponsePlan, selectResponse } from '../responses/select-response.js'
import type { CompiledStateful } from '../state/compile-stateful.js'
import { readListQuery, renderListPage } from '../state/list-page.js'
import { scopeKeyOf } from '../state/datasets.js'
import type { RecordPlace, RecordStore, StoredRecord } from '../state/record-store.js'
import {
  type RecordShape,
  completeRecord,
  fitRecord,
  holdsNested,
  projectRecord,
  withoutServerFields,
} from '../state/record-shape.js'
import { type MediaShapes, NO_SHAPES, listShapesOf, shapesOf } from '../state/media-shapes.js'
import { idValueOf, pathKeyOf, withKey } from '../state/record-values.js'
import { exactRequestBody } from './request-body.js'
import type { RecordAction, Resource } from '../state/resource.js'
import type { Exchange, PipelineDeps } from './exchange.js'

/** What the data step reads of the request: its path parameters and parsed body. */
export interface DataRequest {
  params: Record<string, string>
  value: unknown
}

/**
 * 5b. Data (`--stateful`): what the operation does to its resource's records (create, read, list,
 * replace, merge, remove), and the plan answered from the record. A status or example the request
 * or a scenario picks answers without touching the data; a missing record is a 404, a taken key the
 * declared 409 (else the violation status). Runs after validation, before delay and faults: a
 * `reset` fault on a create happens after the record is stored.
 */
export async function dataStep(
  exchange: Exchange,
  deps: PipelineDeps,
  operation: CompiledOperation,
  stateful: CompiledStateful,
  request: DataRequest,
  plan: ResponsePlan,
): Promise<ResponsePlan> {
  const records = deps.state.records
  const { preferences: chosen, inline } = exchange.decision!
  if (!records || chosen.code !== undefined || chosen.example !== undefined || inline) return plan
  const { resource } = stateful
  const place: RecordPlace = {
    session: requestSession(exchange.request),
    resource,
    scope: scopeKeyOf(resource, request.params),
  }
  if (stateful.parent) await checkParent(records, place.session, stateful.parent, request.params)
  const id = resource.idParameter === undefined ? '' : pathKeyOf(request.params[resource.idParameter]!, resource.idKind)
  const call: DataCall = { exchange, deps, operation, stateful, request, plan, records, place, id }
  return ACTIONS[stateful.action](call)
}

/** One request's data step, as each action reads it. */
interface DataCall {
  exchange: Exchange
  deps: PipelineDeps
  operation: CompiledOperation
  stateful: CompiledStateful
  request: DataRequest
  plan: ResponsePlan
  records: RecordStore
  place: RecordPlace
  /** The key the item path names (`pathKeyOf`); `''` on a collection path. */
  id: string
}

const ACTIONS: Record<RecordAction, (call: DataCall) => Promise<ResponsePlan>> = {
  /** A body that is not a JSON object (`--validate off`) stores nothing. */
  async create({ exchange, deps, operation, stateful, request, plan, records, place }) {
    if (!isPlainObject(request.value)) return plan
    const { resource } = stateful
    const context = deps.engine.errorContext
    const { record: shape, base } = writtenShapes(plan, context)
    const body = withoutServerFields(bodyRecord(exchange, request.value), serverFieldsOf(stateful, shape))
    const created = await records.create(place, completeRecord(body, shape, base, resource.idField))
    if (created.outcome === 'exists') throw errors.recordExists(conflictStatus(operation), resource.name, created.id)
    if (created.outcome === 'full')
      throw errors.recordLimit(operation.responses.violationStatus, resource.name, created.limit)
    exchange.dataEffect = effectOf('created', place, created.id, request.params)
    return answerWith(plan, created.record, context)
  },

  async read({ deps, stateful, plan, records, place, id }) {
    return answerRead(plan, found(await records.read(place, id), stateful.resource.name, id), deps.engine.errorContext)
  },

  list: answerList,

  /** The key is the path's; an absent one is created (answered with the declared 201) only where a 201 is declared. */
  async replace({ exchange, deps, operation, stateful, request, plan, records, place, id }) {
    if (!isPlainObject(request.value)) return plan
    const { resource } = stateful
    const context = deps.engine.errorContext
    const { record: shape, base } = writtenShapes(plan, context)
    const kept = serverFieldsOf(stateful, shape)
    const body = withKey(
      withoutServerFields(bodyRecord(exchange, request.value), kept),
      resource.idField,
      idValueOf(id, resource.idKind),
    )
    const record = completeRecord(body, shape, base, resource.idField)
    const replaced = await records.replace(place, id, record, {
      createsIfAbsent: stateful.createsIfAbsent === true,
      kept,
    })
    if (replaced.outcome === 'missing') throw errors.recordMissing(resource.name, id)
    if (replaced.outcome === 'full')
      throw errors.recordLimit(operation.responses.violationStatus, resource.name, replaced.limit)
    exchange.dataEffect = effectOf(replaced.outcome, place, id, request.params)
    const accept = exchange.request.header('accept')
    const answered =
      replaced.outcome === 'created'
        ? selectResponse(operation, { ...exchange.decision!.preferences, code: 201 }, deps.engine.options, accept)
        : plan
    return answerWith(answered, replaced.record, context)
  },

  async merge({ exchange, deps, stateful, request, plan, records, place, id }) {
    const merged = found(await records.merge(place, id, request.value), stateful.resource.name, id)
    exchange.dataEffect = effectOf('updated', place, id, request.params)
    return answerWith(plan, merged, deps.engine.errorContext)
  },

  async remove({ exchange, deps, stateful, request, plan, records, place, id }) {
    const removed = found(await records.remove(place, id), stateful.resource.name, id)
    exchange.dataEffect = effectOf('deleted', place, id, request.params)
    return answerWith(plan, removed, deps.engine.errorContext)
  },
}

/** What the journal says the request did: `created plants/1`; a nested record names its parents: `created beds/1 (gardenId 9faf…)`. */
function effectOf(done: string, { resource }: RecordPlace, id: string, params: Record<string, string>): string {
  const effect = `${done} ${resource.name}/${id}`
  if (resource.scope.length === 0) return effect
  return `${effect} (${resource.scope.map((name) => `${name} ${params[name]}`).join(', ')})`
}

/** A nested record's parent must exist: `POST /gardens/{unknown}/beds` is a 404, as it is from a real store. */
async function checkParent(
  records: RecordStore,
  session: string | undefined,
  parent: Resource,
  params: Record<string, string>,
): Promise<void> {
  const id = pathKeyOf(params[parent.idParameter!]!, parent.idKind)
  const place = { session, resource: parent, scope: scopeKeyOf(parent, params) }
  if (!(await records.read(place, id))) throw errors.recordMissing(parent.name, id)
}

/**
 * The server's fields: those the response declares and the request body's schema does not (an `id`
 * the mock assigns, a `createdAt`), the key field among them. A body sending one anyway (its schema
 * leaves undeclared fields open) does not set it: `{"id": "not-a-uuid"}` would make every later answer break the description.
 */
function serverFieldsOf(stateful: CompiledStateful, shape: RecordShape): readonly string[] {
  const declared = stateful.bodyFields
  if (!declared) return NONE
  const fields = shape.fields?.filter((field) => !declared.has(field)) ?? []
  const key = stateful.resource.idField
  return declared.has(key) || fields.includes(key) ? fields : [...fields, key]
}

const NONE: readonly string[] = []

/** The body as a record: integers beyond 2^53 read again as written. */
function bodyRecord(exchange: Exchange, value: Record<string, unknown>): StoredRecord {
  return exactRequestBody(exchange, value) as StoredRecord
}

function found(record: StoredRecord | undefined, resource: string, id: string): StoredRecord {
  if (!record) throw errors.recordMissing(resource, id)
  return record
}

/** The declared 409, else the status of a request that breaks the description. */
function conflictStatus(operation: CompiledOperation): number {
  return operation.responses.declared.some((r) => r.code === '409') ? 409 : operation.responses.violationStatus
}

/** The plan, answered from the record where its media type is JSON with a schema; else as planned (a 204 stays empty). */
function answerWith(plan: ResponsePlan, record: StoredRecord, context: RenderContext): ResponsePlan {
  const media = jsonMediaOf(plan)
  if (!media) return plan
  const shape = shapesOf(media, context)
  // A response that is no object (an array where the request sent an object) is answered as without state.
  if (!shape.record.holdsObject) return plan
  const value = fitRecord(media, projectRecord(record, shape.record, shape.base), shape.base)
  if (value === undefined) return plan
  return { ...plan, source: { kind: 'record', value, nested: holdsNested(value) } }
}

/**
 * A read: the same record (records are never changed in place) read again in the same media type is
 * answered with the same source, whose rendering `renderResponse` keeps: nothing is projected,
 * serialised or checked again, and the journal keeps one body for all its reads.
 */
function answerRead(plan: ResponsePlan, record: StoredRecord, context: RenderContext): ResponsePlan {
  const media = jsonMediaOf(plan)
  const kept = media && readAnswers.get(record)
  if (kept && kept.media === media) return { ...plan, source: kept.source }
  const answered = answerWith(plan, record, context)
  if (media) readAnswers.set(record, { media, source: answered.source })
  return answered
}

/** The last answer of each record read: kept as long as the record is. */
const readAnswers = new WeakMap<StoredRecord, { media: DeclaredMedia; source: ResponsePlan['source'] }>()

/** A page of the records, in the list answer's shape: the array, or its wrapper filled. */
async function answerList({
  exchange,
  deps,
  operation,
  stateful,
  plan,
  records,
  place,
}: DataCall): Promise<ResponsePlan> {
  const context = deps.engine.errorContext
  // A list may be asked for as a stream (JSON Lines, Server-Sent Events): the page's records, an item each.
  const streamed = plan.media?.sequence
  const media = streamed ? undefined : jsonMediaOf(plan)
  if ((!media && !streamed) || !stateful.list) return plan
  const query = readListQuery(stateful.list, exchange.request.query(), operation.responses.violationStatus)
  const page = await records.list(place, query)
  if (streamed) {
    const shape = shapesOf(streamed.item, context)
    const items = page.records.map((item) => projectRecord(item as StoredRecord, shape.record, shape.base))
    return { ...plan, source: { kind: 'record', value: items, nested: items.some(holdsNested) } }
  }
  if (!media) return plan
  const { record, base, wrapper } = listShapesOf(media, stateful, context)
  let nested = false
  const value = renderListPage(stateful.list, page, wrapper, (item) => {
    const projected = projectRecord(item as StoredRecord, record, base)
    nested ||= holdsNested(projected)
    return projected
  })
  return { ...plan, source: { kind: 'record', value, nested } }
}

function jsonMediaOf(plan: ResponsePlan): DeclaredMedia | undefined {
  const { media } = plan
  return media?.kind === 'json' && media.schemaPointer && plan.source.kind !== 'empty' ? media : undefined
}

/** What a create or replace answers in: the record's shape and sample there, or none where it answers no JSON. */
function writtenShapes(plan: ResponsePlan, context: RenderContext): MediaShapes {
  const media = jsonMediaOf(plan)
  return media ? shapesOf(media, context) : NO_SHAPES
}
