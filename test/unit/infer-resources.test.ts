import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { loadSpec } from '../../src/openapi/load-spec.js'
import { type OperationDescription, describeOperations } from '../../src/openapi/operations.js'
import { type ResourcePlan, describeResource, inferResources } from '../../src/state/infer-resources.js'
import type { Resource } from '../../src/state/resource.js'
import { nodePlatform } from '../../src/node/node-platform.js'

const specFile = (name: string) => fileURLToPath(new URL(`../descriptions/${name}`, import.meta.url))
const plantStore = fileURLToPath(new URL('../../openapi.yaml', import.meta.url))
const wildFolder = specFile('wild')

/** A description's plan, with its operations, through the project's own loader. */
async function planOf(file: string): Promise<{ plan: ResourcePlan; descriptions: OperationDescription[] }> {
  const spec = await loadSpec(file, { files: nodePlatform.files })
  const descriptions = describeOperations(spec)
  return { plan: inferResources(descriptions, spec.document), descriptions }
}

/** The plan of a description small enough to write inline: just its paths (and components). */
function inlinePlan(paths: Record<string, unknown>, components: Record<string, unknown> = {}) {
  const document = { openapi: '3.1.0', info: { title: 'T', version: '1' }, paths, components }
  const descriptions = describeOperations({ path: '/virtual/spec.yaml', version: '3.1', document })
  return { plan: inferResources(descriptions, document), descriptions }
}

const json = (schema: unknown) => ({ content: { 'application/json': { schema } } })
const thing = { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } } }
const created = { '201': { description: 'created', ...json(thing) } }
const ok = (schema: unknown = thing) => ({ '200': { description: 'ok', ...json(schema) } })
const idParameter = (name: string, schema: unknown = { type: 'string' }) => ({
  name,
  in: 'path',
  required: true,
  schema,
})

/** What the plan says the operation of this id does, `undefined` for one answered as without --stateful. */
function actionOf({ plan, descriptions }: { plan: ResourcePlan; descriptions: OperationDescription[] }, id: string) {
  const index = descriptions.findIndex((description) => description.id === id)
  expect(index, `no operation ${id}`).toBeGreaterThanOrEqual(0)
  return plan.byOperation[index]
}

function resourceNamed(plan: ResourcePlan, name: string): Resource {
  const resource = plan.resources.find((candidate) => candidate.name === name)
  expect(resource, `no resource ${name}`).toBeDefined()
  return resource!
}

describe('inferResources on the Plant Store', () => {
  it('finds one resource, plants, that can only be created, keyed by the integer id its body declares', async () => {
    const { plan } = await planOf(plantStore)
    expect(plan.resources).toEqual([
      {
        name: 'plants',
        collectionPath: '/plants',
        scope: [],
        idField: 'id',
        idKind: 'integer',
        recordSchemaPointer: '/paths/~1plants/post/requestBody/content/application~1json/schema',
        fields: ['name', 'tag', 'id'],
        operations: { create: 'addPlant' },
      },
    ])
    expect(plan.byOperation).toEqual([{ resource: plan.resources[0], action: 'create' }])
    expect(plan.warnings).toEqual([])
  })
})

describe('inferResources on the Garden description', () => {
  let garden: Awaited<ReturnType<typeof planOf>>
  beforeAll(async () => {
    garden = await planOf(specFile('stateful/garden.yaml'))
  })

  it('finds plants, gardens, beds and packets, in declaration order, and warns of nothing', () => {
    expect(garden.plan.resources.map(({ name }) => name)).toEqual(['plants', 'gardens', 'beds', 'packets'])
    expect(garden.plan.warnings).toEqual([])
  })

  it('gives plants every action, keyed by id since the body declares no plantId', () => {
    const plants = resourceNamed(garden.plan, 'plants')
    expect(plants).toMatchObject({
      collectionPath: '/plants',
      itemPath: '/plants/{plantId}',
      scope: [],
      idParameter: 'plantId',
      idField: 'id',
      idKind: 'integer',
      recordSchemaPointer: '/paths/~1plants/post/requestBody/content/application~1json/schema',
      operations: {
        create: 'createPlant',
        list: 'listPlants',
        read: 'getPlant',
        replace: 'replacePlant',
        merge: 'updatePlant',
        remove: 'deletePlant',
      },
    })
    expect(plants.fields).toEqual(['id', 'name', 'tag'])
  })

  it('maps each operation of a resource to its action and resource', () => {
    const plants = resourceNamed(garden.plan, 'plants')
    expect(actionOf(garden, 'createPlant')).toEqual({ resource: plants, action: 'create' })
    expect(actionOf(garden, 'listPlants')).toEqual({ resource: plants, action: 'list' })
    expect(actionOf(garden, 'getPlant')).toEqual({ resource: plants, action: 'read' })
    expect(actionOf(garden, 'updatePlant')).toEqual({ resource: plants, action: 'merge' })
    expect(actionOf(garden, 'deletePlant')).toEqual({ resource: plants, action: 'remove' })
    expect(actionOf(garden, 'createPlant')!.resource).toBe(plants)
  })

  it('lets a PUT that declares 201 create an absent record, and one declaring only 200 and 404 not', () => {
    expect(actionOf(garden, 'replacePlant')).toMatchObject({ action: 'replace', createsIfAbsent: true })
    expect(actionOf(garden, 'replaceGarden')).toMatchObject({ action: 'replace', createsIfAbsent: false })
  })

  it('keys gardens by a uuid that only the response declares, and counts createdAt among their fields', () => {
    const gardens = resourceNamed(garden.plan, 'gardens')
    expect(gardens).toMatchObject({ idParameter: 'gardenId', idField: 'id', idKind: 'uuid', scope: [] })
    expect(gardens.fields).toEqual(['id', 'name', 'location', 'createdAt'])
    expect(gardens.operations).toEqual({
      create: 'createGarden',
      list: 'listGardens',
      read: 'getGarden',
      replace: 'replaceGarden',
      remove: 'deleteGarden',
    })
  })

  it('scopes beds by gardenId and keys them by bedId, the body property named like the item parameter', () => {
    expect(resourceNamed(garden.plan, 'beds')).toMatchObject({
      collectionPath: '/gardens/{gardenId}/beds',
      itemPath: '/gardens/{gardenId}/beds/{bedId}',
      scope: ['gardenId'],
      idParameter: 'bedId',
      idField: 'bedId',
      idKind: 'integer',
      operations: { create: 'createBed', list: 'listBeds', read: 'getBed', remove: 'deleteBed' },
    })
  })

  it("reads a list's records from the array property of its wrapper object, not the wrapper's own fields", () => {
    expect(resourceNamed(garden.plan, 'beds').fields).toEqual(['bedId', 'soil'])
  })

  it('renames seed-packets to packets and keys them by sku, a string, by x-mock-resource, though the parameter is code', () => {
    expect(resourceNamed(garden.plan, 'packets')).toMatchObject({
      collectionPath: '/seed-packets',
      itemPath: '/seed-packets/{code}',
      idParameter: 'code',
      idField: 'sku',
      idKind: 'string',
      operations: { create: 'createSeedPacket', list: 'listSeedPackets', read: 'getSeedPacket' },
    })
  })

  it('answers the paths x-mock-resource: false opts out as without --stateful', () => {
    expect(actionOf(garden, 'createLegacyPlant')).toBeUndefined()
    expect(actionOf(garden, 'listLegacyPlants')).toBeUndefined()
    expect(garden.plan.resources.some(({ name }) => name === 'legacy-plants')).toBe(false)
  })

  it('leaves an action on a record (POST /plants/{plantId}/water) and GET /status out of every resource', () => {
    expect(actionOf(garden, 'waterPlant')).toBeUndefined()
    expect(actionOf(garden, 'getStatus')).toBeUndefined()
    expect(garden.plan.byOperation.filter((operation) => operation === undefined)).toHaveLength(4)
  })
})

describe('inferResources on small inline descriptions', () => {
  it('names two collections sharing their last segment by their literal segments joined', () => {
    const { plan } = inlinePlan({
      '/users/{userId}/repos': {
        post: { operationId: 'createUserRepo', requestBody: json(thing), responses: created },
      },
      '/orgs/{orgId}/repos': { get: { operationId: 'listOrgRepos', responses: ok({ type: 'array', items: thing }) } },
      '/orgs/{orgId}/repos/{repo}': { get: { operationId: 'getOrgRepo', responses: ok() } },
    })
    expect(plan.resources.map(({ name, scope }) => ({ name, scope }))).toEqual([
      { name: 'users/repos', scope: ['userId'] },
      { name: 'orgs/repos', scope: ['orgId'] },
    ])
  })

  it('tells two resources with the same literal segments apart by a number', () => {
    const { plan } = inlinePlan({
      '/teams/members': { get: { operationId: 'listMembers', responses: ok({ type: 'array', items: thing }) } },
      '/teams/{teamId}/members': {
        get: { operationId: 'listTeamMembers', responses: ok({ type: 'array', items: thing }) },
      },
    })
    expect(plan.resources.map(({ name }) => name)).toEqual(['teams/members', 'teams/members-2'])
    expect(plan.warnings).toEqual([])
  })

  it('warns when x-mock-resource names a resource as another is named, and numbers the second', () => {
    const list = (operationId: string) => ({ get: { operationId, responses: ok({ type: 'array', items: thing }) } })
    const { plan } = inlinePlan({
      '/plants': list('listPlants'),
      '/flora': { 'x-mock-resource': { name: 'plants' }, ...list('listFlora') },
    })
    expect(plan.resources.map(({ name }) => name)).toEqual(['plants', 'plants-2'])
    expect(plan.warnings).toEqual(['x-mock-resource names a second resource "plants"; this one is called "plants-2".'])
  })

  it('forms a resource of an item path with no collection operation, keyed as its parameter declares', () => {
    const { plan } = inlinePlan({
      '/things/{thingId}': {
        parameters: [idParameter('thingId', { type: 'string', format: 'uuid' })],
        get: { operationId: 'getThing', responses: ok({ type: 'object' }) },
      },
    })
    expect(plan.resources).toEqual([
      {
        name: 'things',
        itemPath: '/things/{thingId}',
        scope: [],
        idParameter: 'thingId',
        idField: 'id',
        idKind: 'uuid',
        fields: [],
        operations: { read: 'getThing' },
      },
    ])
  })

  it('makes no resource of paths with a query, a mixed segment, a dotted or version segment, or two parameters in a row', () => {
    const list = { get: { responses: ok({ type: 'array', items: thing }) } }
    const { plan } = inlinePlan({
      '/search?q={q}': list,
      '/files/{name}.json': { get: { responses: ok() } },
      '/openapi.json': list,
      '/v1': list,
      '/v1beta1/{name}': { get: { responses: ok() } },
      '/': list,
      '/maps/{x}/{y}': { get: { responses: ok() } },
      '/plants/': list,
    })
    expect(plan.resources).toEqual([])
    expect(plan.byOperation.every((operation) => operation === undefined)).toBe(true)
  })

  it('makes no create of a POST whose body is not a JSON object, and no merge of a JSON Patch', () => {
    const { plan } = inlinePlan({
      '/notes': {
        post: {
          operationId: 'postNote',
          requestBody: { content: { 'text/plain': { schema: { type: 'string' } } } },
          responses: created,
        },
      },
      '/tags': {
        post: { operationId: 'postTags', requestBody: json({ type: 'array', items: thing }), responses: created },
      },
      '/items/{id}': {
        parameters: [idParameter('id')],
        patch: {
          operationId: 'patchItem',
          requestBody: { content: { 'application/json-patch+json': { schema: { type: 'array', items: thing } } } },
          responses: ok(),
        },
      },
    })
    expect(plan.resources).toEqual([])
  })

  it('takes a merge patch body and a read that answers 2XX, and keeps a list of strings or a status object out', () => {
    const { plan } = inlinePlan(
      {
        '/names': { get: { operationId: 'listNames', responses: ok({ type: 'array', items: { type: 'string' } }) } },
        '/health': {
          get: { operationId: 'health', responses: ok({ type: 'object', properties: { ok: { type: 'boolean' } } }) },
        },
        '/items/{id}': {
          parameters: [idParameter('id')],
          get: { operationId: 'getItem', responses: { '2XX': { description: 'ok', ...json(thing) } } },
          patch: {
            operationId: 'mergeItem',
            requestBody: {
              content: { 'application/merge-patch+json': { schema: { $ref: '#/components/schemas/Patch' } } },
            },
            responses: ok(),
          },
        },
      },
      { schemas: { Patch: { allOf: [{ properties: { name: { type: 'string' } } }] } } },
    )
    expect(plan.resources.map(({ name, operations }) => ({ name, operations }))).toEqual([
      { name: 'items', operations: { read: 'getItem', merge: 'mergeItem' } },
    ])
  })

  it('takes a DELETE answering no content or JSON beside XML, and not one answering only text', () => {
    const { plan } = inlinePlan({
      '/a/{id}': {
        parameters: [idParameter('id')],
        delete: { operationId: 'removeA', responses: { '204': { description: 'gone' } } },
      },
      '/b/{id}': {
        parameters: [idParameter('id')],
        delete: {
          operationId: 'removeB',
          responses: { '200': { description: 'gone', content: { 'text/plain': { schema: { type: 'string' } } } } },
        },
      },
      '/c/{id}': {
        parameters: [idParameter('id')],
        delete: {
          operationId: 'removeC',
          responses: {
            '200': {
              description: 'gone',
              content: { 'application/xml': { schema: thing }, 'application/json': { schema: thing } },
            },
          },
        },
      },
    })
    expect(plan.resources.map(({ name }) => name)).toEqual(['a', 'c'])
  })

  it('warns once of each malformed x-mock-resource field, and keeps the well-formed ones', () => {
    const { plan } = inlinePlan({
      '/things': {
        'x-mock-resource': { name: 'stuff', id: 7, colour: 'red' },
        post: { operationId: 'createThing', requestBody: json(thing), responses: created },
        get: { operationId: 'listThings', responses: ok({ type: 'array', items: thing }) },
      },
      '/others': {
        'x-mock-resource': 'yes',
        get: { operationId: 'listOthers', responses: ok({ type: 'array', items: thing }) },
      },
    })
    expect(plan.resources.map(({ name, idField }) => ({ name, idField }))).toEqual([
      { name: 'stuff', idField: 'id' },
      { name: 'others', idField: 'id' },
    ])
    expect(plan.warnings).toHaveLength(3)
    expect(plan.warnings[0]).toContain('x-mock-resource at #/paths/~1things: "id" is ignored')
    expect(plan.warnings[1]).toContain('"colour" is ignored')
    expect(plan.warnings[2]).toContain('x-mock-resource at #/paths/~1others is ignored')
  })

  it('leaves out, with a warning, an item path whose scope parameters are named unlike its collection path', () => {
    const { plan, descriptions } = inlinePlan({
      '/users/{userId}/pets': { get: { operationId: 'listPets', responses: ok({ type: 'array', items: thing }) } },
      '/users/{user}/pets/{petId}': {
        parameters: [idParameter('user'), idParameter('petId')],
        get: { operationId: 'getPet', responses: ok() },
      },
    })
    expect(plan.resources).toHaveLength(1)
    expect(plan.resources[0]).toMatchObject({ name: 'pets', scope: ['userId'], collectionPath: '/users/{userId}/pets' })
    expect(actionOf({ plan, descriptions }, 'getPet')).toBeUndefined()
    expect(plan.warnings).toEqual([
      '/users/{user}/pets/{petId}: parameters named unlike /users/{userId}/pets; left out of --stateful.',
    ])
  })

  it('reads x-mock-resource on the item path too, and an opted-out collection path leaves its item path a resource', () => {
    const { plan, descriptions } = inlinePlan({
      '/orders': {
        'x-mock-resource': false,
        post: { operationId: 'createOrder', requestBody: json(thing), responses: created },
      },
      '/orders/{orderId}': {
        'x-mock-resource': { id: 'number' },
        parameters: [idParameter('orderId')],
        get: { operationId: 'getOrder', responses: ok({ type: 'object', properties: { number: { type: 'number' } } }) },
      },
    })
    expect(plan.resources).toMatchObject([
      {
        name: 'orders',
        itemPath: '/orders/{orderId}',
        idField: 'number',
        idKind: 'integer',
        operations: { read: 'getOrder' },
      },
    ])
    expect(plan.resources[0]!.collectionPath).toBeUndefined()
    expect(actionOf({ plan, descriptions }, 'createOrder')).toBeUndefined()
  })

  it('reads schemas at pointers under a path key holding a percent sign, which a $ref would have encoded', () => {
    const { plan } = inlinePlan({
      '/deals/50%off': { post: { operationId: 'createDeal', requestBody: json(thing), responses: created } },
      '/a%20b': { post: { operationId: 'createAB', requestBody: json(thing), responses: created } },
    })
    expect(plan.resources.map(({ name, idKind }) => ({ name, idKind }))).toEqual([
      { name: '50%off', idKind: 'integer' },
      { name: 'a%20b', idKind: 'integer' },
    ])
  })
})

describe('describeResource', () => {
  it('says the resource, its actions in their usual order, its id field and how its keys are made, in one line', async () => {
    const { plan } = await planOf(specFile('stateful/garden.yaml'))
    expect(plan.resources.map(describeResource)).toEqual([
      'plants: create, list, read, replace, merge, remove (id field id, integer)',
      'gardens: create, list, read, replace, remove (id field id, uuid)',
      'beds: create, list, read, remove (id field bedId, integer)',
      'packets: create, list, read (id field sku, string)',
    ])
  })
})

describe('inferResources on descriptions from the wild', () => {
  const files = readdirSync(wildFolder).filter((name) => /\.(ya?ml|json)$/.test(name))

  it.each(files)('does not throw on %s', async (name) => {
    let loaded: { document: unknown; descriptions: OperationDescription[] }
    try {
      const spec = await loadSpec(`${wildFolder}/${name}`, { files: nodePlatform.files })
      loaded = { document: spec.document, descriptions: describeOperations(spec) }
    } catch {
      return // Refused by the loader, as the wild case expects: nothing for stateful mode to read.
    }
    const plan = inferResources(loaded.descriptions, loaded.document)
    expect(plan.byOperation).toHaveLength(loaded.descriptions.length)
  })
})
