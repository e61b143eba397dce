import { isPlainObject } from '../internal/plain-object.js'
import { valueAt } from '../internal/value-at.js'
import { essenceOf, framingOf, isJsonType } from '../internal/media-type.js'
import { flattenSchema } from '../openapi/flatten-schema.js'
import type { MediaTypeDescription, OperationDescription } from '../openapi/operations.js'
import { pointerOf, pointerTokens, resolveRef } from '../openapi/resolve-ref.js'
import type { IdKind, RecordAction, Resource, StatefulOperation } from './resource.js'

/** What stateful mode makes of a description: its resources, and what each operation does to one. */
export interface ResourcePlan {
  resources: Resource[]
  /** Indexed like the descriptions: `undefined` where an operation is answered as without `--stateful`. */
  byOperation: Array<StatefulOperation | undefined>
  /** Problems the mock serves around (a malformed `x-mock-resource`, a path left out), each said once. */
  warnings: string[]
}

/** Where a path sits in a resource: its collection path (`/plants`) or its item path (`/plants/{plantId}`). */
interface PathPlace {
  path: string
  role: 'collection' | 'item'
  /** The collection path without parameter names (`/gardens/{}/beds`): where a collection and its items meet. */
  key: string
  literals: string[]
  scope: string[]
  idParameter?: string
}

/** `x-mock-resource` on a path item, as far as it is well formed. */
type Override = { name?: string; id?: string }

/** One operation of a resource, with the body it takes and the schema of the record it answers, where it has them. */
interface Step {
  index: number
  action: RecordAction
  operation: OperationDescription
  body?: MediaTypeDescription
  bodySchema?: unknown
  answer?: unknown
}

/** A resource being gathered: the first path claimed gives its place, the item path its id parameter. */
interface Gathering {
  place: PathPlace
  paths: Partial<Record<PathPlace['role'], string>>
  /** Where the collection and item paths both carry `x-mock-resource`, the one declared first wins. */
  override: Override
  steps: Step[]
}

const ACTIONS: Record<PathPlace['role'], Partial<Record<string, RecordAction>>> = {
  collection: { POST: 'create', GET: 'list' },
  item: { GET: 'read', PUT: 'replace', PATCH: 'merge', DELETE: 'remove' },
}
const ACTION_ORDER: readonly RecordAction[] = ['create', 'list', 'read', 'replace', 'merge', 'remove']
const OVERRIDE_FORM = 'it is false, or an object whose "name" and "id" are non-empty strings'

/** Finds the description's resources: a collection path and its item path, by their operations' methods and bodies. */
export function inferResources(descriptions: readonly OperationDescription[], document: unknown): ResourcePlan {
  const warnings: string[] = []
  const byOperation: Array<StatefulOperation | undefined> = descriptions.map(() => undefined)
  const named: Array<Gathering & { resource: Resource }> = []
  for (const gathering of gatherSteps(descriptions, document, warnings)) {
    const resource = buildResource(document, gathering)
    named.push({ ...gathering, resource })
    for (const { index, action, operation } of gathering.steps) {
      const createsIfAbsent = operation.responses.some(({ code }) => code === '201')
      byOperation[index] = action === 'replace' ? { resource, action, createsIfAbsent } : { resource, action }
    }
  }
  nameResources(named, warnings)
  return { resources: named.map(({ resource }) => resource), byOperation, warnings: [...new Set(warnings)] }
}

/** One start-up line per resource: `plants: create, list, read, replace, merge, remove (id field id, integer)`. */
export function describeResource({ name, operations, idField, idKind }: Resource): string {
  return `${name}: ${ACTION_ORDER.filter((action) => operations[action]).join(', ')} (id field ${idField}, ${idKind})`
}

/** The operations that fit a resource's pattern, grouped by their collection path, in declaration order. */
function gatherSteps(descriptions: readonly OperationDescription[], document: unknown, warnings: string[]) {
  const gatherings = new Map<string, Gathering>()
  descriptions.forEach((operation, index) => {
    const place = placeOf(operation.path)
    const action = place && ACTIONS[place.role][operation.method]
    const step = action && stepFor(document, operation, action, index)
    const override = step && readOverride(document, operation.path, warnings)
    if (place && step && override) claimPath(gatherings, place, override, warnings)?.steps.push(step)
  })
  return [...gatherings.values()]
}

/** Where a path sits in a resource; `undefined` for `/`, `/files/{name}.json`, `/a/{b}/{c}`, `/a.json`, `/v1beta1`. */
function placeOf(path: string): PathPlace | undefined {
  if (/[?#]/.test(path)) return undefined
  const segments = path.split('/').slice(1)
  const names = segments.map((segment) => /^\{([^{}]+)\}$/.exec(segment)?.[1])
  if (segments.some((segment, i) => segment === '' || (!names[i] && /[{}]/.test(segment)))) return undefined
  const role = names.at(-1) === undefined ? 'collection' : 'item'
  const end = role === 'collection' ? segments.length : segments.length - 1
  const last = segments[end - 1]
  if (last === undefined || names[end - 1] || last.includes('.') || /^v\d+([a-z]+\d*)*$/i.test(last)) return undefined
  const inCollection = segments.slice(0, end)
  return {
    path,
    role,
    key: `/${inCollection.map((segment, i) => (names[i] === undefined ? segment : '{}')).join('/')}`,
    literals: inCollection.filter((_, i) => names[i] === undefined),
    scope: names.slice(0, end).filter((name) => name !== undefined),
    idParameter: role === 'item' ? names.at(-1) : undefined,
  }
}

/** The path item's `x-mock-resource`: `false` opts the path out; an object names the resource or its id field. */
function readOverride(document: unknown, path: string, warnings: string[]): Override | false {
  const pointer = pointerOf('paths', path)
  const raw = resolveRef(document, { node: valueAt(document, ['paths', path]), pointer }).node?.['x-mock-resource']
  if (raw === false) return false
  const where = `x-mock-resource at #${pointer}`
  if (raw !== undefined && raw !== true && !isPlainObject(raw)) warnings.push(`${where} is ignored: ${OVERRIDE_FORM}.`)
  const override: Override = {}
  for (const [key, field] of Object.entries(isPlainObject(raw) ? raw : {})) {
    if ((key === 'name' || key === 'id') && typeof field === 'string' && field !== '') override[key] = field
    else warnings.push(`${where}: "${key}" is ignored; ${OVERRIDE_FORM}.`)
  }
  return override
}

/** The path's resource, the path taken as its collection or item path; `undefined` if one of its shape came first. */
function claimPath(gatherings: Map<string, Gathering>, place: PathPlace, override: Override, warnings: string[]) {
  const gathering = gatherings.get(place.key) ?? { place, paths: {}, override: {}, steps: [] }
  gatherings.set(place.key, gathering)
  const { paths, place: first } = gathering
  if (paths[place.role] === place.path) return gathering
  const rival =
    paths[place.role] ?? (`${place.scope}` === `${first.scope}` ? undefined : (paths.collection ?? paths.item))
  if (rival !== undefined) {
    warnings.push(`${place.path}: parameters named unlike ${rival}; left out of --stateful.`)
    return undefined
  }
  paths[place.role] = place.path
  gathering.override = { ...override, ...gathering.override }
  if (place.role === 'item') gathering.place.idParameter = place.idParameter
  return gathering
}

/** The operation as a step of its action, or `undefined` where its body or answers do not suit the action. */
function stepFor(document: unknown, operation: OperationDescription, action: RecordAction, index: number) {
  const takesBody = action === 'create' || action === 'replace' || action === 'merge'
  const offered = takesBody ? (operation.requestBody?.content ?? []) : []
  const body = offered.find((media) => isObjectSchema(document, jsonSchemaOf(document, media)))
  const answers = operation.responses.filter(({ code }) => /^2(\d\d|XX)$/i.test(code)).flatMap(({ content }) => content)
  const schema = answers.map((media) => jsonSchemaOf(document, media)).find((found) => found !== undefined)
  // A list answers a JSON array of records, or streams them (JSON Lines, SSE) an item each.
  const answer =
    action === 'list' ? (listedRecordSchema(document, schema) ?? streamedRecordSchema(document, answers)) : schema
  const answersJson = answers.some(isJsonMedia) || (action === 'remove' && answers.length === 0)
  // Create, replace and merge take a JSON object; a list answers JSON objects; a read JSON; a remove JSON or nothing.
  const fits = takesBody ? body !== undefined : action === 'list' ? answer !== undefined : answersJson
  return fits ? { index, action, operation, body, bodySchema: body && jsonSchemaOf(document, body), answer } : undefined
}

/** `application/json` or any `+json` type. */
const isJsonMedia = (media: MediaTypeDescription): boolean => isJsonType(essenceOf(media.mediaType))

/** The schema of a JSON media type (`application/json`, any `+json`), else `undefined`. */
function jsonSchemaOf(document: unknown, media: MediaTypeDescription): unknown {
  return isJsonMedia(media) ? schemaAt(document, media.schemaPointer) : undefined
}

/** A schema one of whose parts (`allOf` and the like followed) says `type: object` or declares properties. */
function isObjectSchema(document: unknown, schema: unknown): boolean {
  const parts = flattenSchema(document, schema)
  return parts.some((part) => [part.type].flat().includes('object') || isPlainObject(part.properties))
}

/** The item schema of a sequential media type (3.2's `itemSchema`, else its `schema`), where it is an object. */
function streamedRecordSchema(document: unknown, answers: readonly MediaTypeDescription[]): unknown {
  for (const media of answers) {
    const pointer = media.itemSchemaPointer ?? media.schemaPointer
    if (!framingOf(media.mediaType) || pointer === undefined) continue
    const item = schemaAt(document, pointer)
    if (isObjectSchema(document, item)) return item
  }
  return undefined
}

/** One record of a list: an array's object items, or those of a wrapper's array property (`{items: [...], total}`). */
function listedRecordSchema(document: unknown, schema: unknown): unknown {
  for (const candidate of [schema, ...propertiesOf(document, schema).values()]) {
    const items: unknown = flattenSchema(document, candidate).find((part) => isPlainObject(part.items))?.items
    if (items !== undefined && isObjectSchema(document, items)) return items
  }
  return undefined
}

/** The resource a gathering makes, named after its last literal segment until `nameResources` settles clashes. */
function buildResource(document: unknown, { place, place: { idParameter }, paths, override, steps }: Gathering) {
  const [create, list, read, replace] = ACTION_ORDER.map((action) => steps.find((step) => step.action === action))
  const keyStep = create ?? replace
  const idField =
    override.id ?? (idParameter && propertiesOf(document, keyStep?.bodySchema).has(idParameter) ? idParameter : 'id')
  // The id's schema: in the create or replace body, else the read, create or list answer, else its parameter's.
  const idSources = [create?.bodySchema, replace?.bodySchema, read?.answer, create?.answer, list?.answer]
  const parameters = steps.flatMap(({ operation }) => operation.parameters)
  const pointer = parameters.find(({ name, in: at }) => at === 'path' && name === idParameter)?.schemaPointer
  const idSchema =
    idSources.map((schema) => propertiesOf(document, schema).get(idField)).find(Boolean) ?? schemaAt(document, pointer)
  return {
    name: override.name ?? place.literals.at(-1)!,
    collectionPath: paths.collection,
    itemPath: paths.item,
    scope: place.scope,
    idParameter,
    idField,
    idKind: idKindOf(document, idSchema),
    recordSchemaPointer: keyStep?.body?.schemaPointer,
    fields: fieldsOf(document, steps),
    operations: Object.fromEntries(steps.map((step) => [step.action, step.operation.id])),
  }
}

/** The node at a pointer to the description: a plain JSON pointer, which unlike a `$ref` is not percent-encoded. */
function schemaAt(document: unknown, pointer: string | undefined): unknown {
  return pointer === undefined ? undefined : valueAt(document, pointerTokens(pointer))
}

/** The properties the schema and its parts declare, by name, in the order first seen. */
function propertiesOf(document: unknown, schema: unknown): Map<string, unknown> {
  const parts = flattenSchema(document, schema)
  return new Map(parts.flatMap((part) => (isPlainObject(part.properties) ? Object.entries(part.properties) : [])))
}

/** `integer` (or `number`) → the next integer; a string of `format: uuid` → a uuid; else a short string. */
function idKindOf(document: unknown, schema: unknown): IdKind {
  const parts = flattenSchema(document, schema)
  if (parts.some((part) => [part.type].flat().some((type) => type === 'integer' || type === 'number'))) return 'integer'
  return parts.some((part) => part.format === 'uuid') ? 'uuid' : 'string'
}

/** Property names of every body and answered record of the resource's operations, first seen first. */
function fieldsOf(document: unknown, steps: Step[]): string[] {
  const schemas = steps.flatMap((step) => [step.bodySchema, step.answer])
  return [...new Set(schemas.flatMap((schema) => [...propertiesOf(document, schema).keys()]))]
}

/**
 * Settles names: a name two resources would share becomes each one's literal segments joined (`orgs/repos`);
 * one still taken (`/a/{x}/b` beside `/a/b`, or an override's, which is warned of) gets `-2`, `-3`.
 */
function nameResources(named: Array<Gathering & { resource: Resource }>, warnings: string[]): void {
  const bases = named.map(({ resource }) => resource.name)
  const taken = new Set<string>()
  for (const { resource, override, place } of named) {
    const shared = bases.indexOf(resource.name) !== bases.lastIndexOf(resource.name)
    if (shared && override.name === undefined) resource.name = place.literals.join('/')
    let name = resource.name
    for (let n = 2; taken.has(name); n++) name = `${resource.name}-${n}`
    if (name !== resource.name && override.name !== undefined)
      warnings.push(`x-mock-resource names a second resource "${resource.name}"; this one is called "${name}".`)
    taken.add((resource.name = name))
  }
}
