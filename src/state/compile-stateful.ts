import type { Files } from '../common/files.js'
import type { Logger } from '../common/log.js'
import type { OperationDescription } from '../openapi/operations.js'
import { type Ajv, compileAt } from '../validation/create-ajv.js'
import { type RecordChecker, compileRecordChecker } from './check-records.js'
import { describeResource, inferResources } from './infer-resources.js'
import { type ListPlan, compileListPlan, describeListPlan } from './list-page.js'
import { loadSeed } from './load-seed.js'
import type { RecordSets } from './record-store.js'
import type { Resource, StatefulOperation } from './resource.js'
import { shapeOf } from './record-shape.js'
import { nodeAt } from '../openapi/resolve-ref.js'

/** What an operation does to its resource's records, compiled into `CompiledOperation.stateful`. */
export interface CompiledStateful extends StatefulOperation {
  /** For `list`: the parameters it reads and where its answer puts the records. */
  list?: ListPlan
  /**
   * For `create` and `replace`: the properties the request body's schema declares; `undefined` when it
   * declares none. A field it does not declare that the response does (an `id`, a `createdAt`) is the
   * server's: taken from the mock, not from the body.
   */
  bodyFields?: ReadonlySet<string>
  /** A nested resource's parent (`gardens` for `/gardens/{gardenId}/beds`), where the description has its item path: its record must exist. */
  parent?: Resource
}

/** Stateful mode as start-up leaves it: the resources, their seed, and what checks records given at runtime. */
export interface StatefulSetup {
  resources: Resource[]
  seed: RecordSets
  /** By resource name: checks records given by `PUT /__mock/state/{resource}` and `mock.state.set`. */
  checkers: Map<string, RecordChecker>
  /** Indexed like the operations. */
  byOperation: Array<CompiledStateful | undefined>
}

/**
 * `--stateful`: infers the resources, compiles each list's paging, reads the seed
 * (`fixtures/data/<resource>.json`), and prints one line per resource.
 */
export async function compileStateful(
  descriptions: readonly OperationDescription[],
  document: unknown,
  requestAjv: Ajv,
  fixturesDir: string,
  files: Files,
  logger: Logger,
): Promise<StatefulSetup> {
  const plan = inferResources(descriptions, document)
  for (const warning of plan.warnings) logger.warn(warning)
  const checkers = new Map(
    plan.resources.map((resource) => [
      resource.name,
      compileRecordChecker(
        resource,
        resource.recordSchemaPointer ? compileAt(requestAjv, resource.recordSchemaPointer) : undefined,
      ),
    ]),
  )
  const byOperation = plan.byOperation.map((stateful, index): CompiledStateful | undefined => {
    if (!stateful) return undefined
    const parent = parentOf(stateful.resource, plan.resources)
    const description = descriptions[index]!
    const compiled: CompiledStateful = parent ? { ...stateful, parent } : { ...stateful }
    if (stateful.action === 'create' || stateful.action === 'replace') {
      const fields = shapeOf(document, bodySchemaOf(description, document)).fields
      if (fields) compiled.bodyFields = new Set(fields)
    }
    if (stateful.action !== 'list') return compiled
    return {
      ...compiled,
      list: compileListPlan(description, document, stateful.resource, successPointerOf(description)),
    }
  })
  for (const resource of plan.resources) {
    const list = byOperation.find((s) => s?.resource === resource && s.list)?.list
    logger.info(`resource ${describeResource(resource)}${list ? `; list ${describeListPlan(list)}` : ''}`)
  }
  if (plan.resources.length === 0)
    logger.warn('--stateful: the description implies no resource; every answer is as without it.')
  const seed = await loadSeed(fixturesDir, files, plan.resources, checkers)
  return { resources: plan.resources, seed, checkers, byOperation }
}

/** The resource whose item path the nested collection path extends (`/gardens/{gardenId}` of `/gardens/{gardenId}/beds`). */
function parentOf(resource: Resource, resources: readonly Resource[]): Resource | undefined {
  const path = resource.collectionPath ?? resource.itemPath?.replace(/\/[^/]+$/, '')
  if (!path || resource.scope.length === 0) return undefined
  const above = path.replace(/\/[^/]+$/, '')
  return resources.find((other) => other !== resource && other.itemPath === above && other.idParameter !== undefined)
}

/** The schema of the request body's first JSON media type. */
function bodySchemaOf(description: OperationDescription, document: unknown): unknown {
  const pointer = description.requestBody?.content.find((c) => /json/i.test(c.mediaType))?.schemaPointer
  return pointer === undefined ? undefined : nodeAt(document, pointer)
}

/** The schema of the first 2xx JSON response. */
function successPointerOf(description: OperationDescription): string | undefined {
  const success = description.responses.find((r) => /^2/.test(r.code))
  return success?.content.find((c) => /json/i.test(c.mediaType))?.schemaPointer
}
