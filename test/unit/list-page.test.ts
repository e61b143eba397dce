import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { MockError } from '../../src/errors/index.js'
import { loadSpec } from '../../src/openapi/load-spec.js'
import { describeOperations } from '../../src/openapi/operations.js'
import {
  type ListPlan,
  type ListQuery,
  compileListPlan,
  describeListPlan,
  pageRecords,
  readListQuery,
  renderListPage,
} from '../../src/state/list-page.js'
import type { Resource } from '../../src/state/resource.js'
import { operationsOf } from '../support/builders.js'
import { nodePlatform } from '../../src/node/node-platform.js'

const { files } = nodePlatform

const garden = fileURLToPath(new URL('../descriptions/stateful/garden.yaml', import.meta.url))

function resourceOf(fields: string[], name = 'plants'): Resource {
  return { name, collectionPath: '/plants', scope: [], idField: 'id', idKind: 'integer', fields, operations: {} }
}

/** A query parameter as declared: an integer unless a schema is given. */
function query(name: string, schema: unknown = { type: 'integer' }) {
  return { name, in: 'query', schema }
}

/** The plan of `GET /plants` with these parameters and this 200 schema, for a resource with these fields. */
function planOf(
  parameters: unknown[],
  schema: unknown = { type: 'array', items: {} },
  { fields = ['id', 'name', 'tag'], components = {} }: { fields?: string[]; components?: Record<string, unknown> } = {},
): ListPlan {
  const document = {
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths: {
      '/plants': {
        get: {
          operationId: 'listPlants',
          parameters,
          responses: { '200': { description: 'd', content: { 'application/json': { schema } } } },
        },
      },
    },
    components,
  }
  const [operation] = operationsOf(document)
  return compileListPlan(operation!, document, resourceOf(fields), operation!.responses[0]!.content[0]!.schemaPointer)
}

/** The wrapper found in an object schema with these properties (and these required ones). */
function wrapperOf(properties: Record<string, unknown>, required: string[] = [], parameters: unknown[] = []) {
  return planOf(parameters, { type: 'object', required, properties }).wrapper
}

const array = { type: 'array', items: { type: 'object' } }
const records = (count: number) => Array.from({ length: count }, (_, index) => ({ id: index + 1 }))
const ids = (page: { records: readonly unknown[] }) => page.records.map((record) => (record as { id: number }).id)
const read = (plan: ListPlan, search: string) => readListQuery(plan, new URLSearchParams(search), 400)

describe('compileListPlan', () => {
  it.each(['limit', 'per_page', 'perPage', 'pageSize', 'page_size', 'size', 'count', 'max_results', 'maxResults'])(
    'reads the page size from a query parameter named %s',
    (name) => expect(planOf([query(name)]).limit).toBe(name),
  )

  it.each(['top', '$top'])('reads the page size from a query parameter named %s', (name) => {
    expect(planOf([query(name)]).limit).toBe(name)
  })

  it.each(['offset', 'skip', 'start', '$skip'])('reads the offset from a query parameter named %s', (name) => {
    expect(planOf([query(name)]).offset).toBe(name)
  })

  it.each(['page', 'page_number', 'pageNumber'])('reads the page number from a query parameter named %s', (name) => {
    expect(planOf([query(name)]).page).toBe(name)
  })

  it.each(['cursor', 'after', 'page_token', 'pageToken', 'starting_after', 'next_token', 'nextToken', 'continue'])(
    'reads the cursor from a query parameter named %s',
    (name) => expect(planOf([query(name, { type: 'string' })]).cursor).toBe(name),
  )

  it('gives a role to the first-listed of its names, whatever the declaration order', () => {
    const plan = planOf([query('size'), query('limit'), query('skip'), query('offset')])
    expect(plan).toMatchObject({ limit: 'limit', offset: 'offset' })
  })

  it('matches role names case-sensitively, and only among query parameters', () => {
    const plan = planOf([query('Limit'), query('PAGE'), { name: 'offset', in: 'header', schema: { type: 'integer' } }])
    expect(plan).toEqual({ filters: [] })
  })

  it('takes the default page size from the limit schema, through $refs', () => {
    const components = {
      parameters: { Limit: query('limit', { $ref: '#/components/schemas/PageSize' }) },
      schemas: { PageSize: { type: 'integer', default: 25 } },
    }
    expect(planOf([{ $ref: '#/components/parameters/Limit' }], array, { components }).defaultLimit).toBe(25)
  })

  it('has no default page size where the limit declares none, or one that is not a whole count', () => {
    expect(planOf([query('limit')]).defaultLimit).toBeUndefined()
    expect(planOf([query('limit', { type: 'integer', default: -1 })]).defaultLimit).toBeUndefined()
    expect(planOf([query('limit', { type: 'string', default: 'ten' })]).defaultLimit).toBeUndefined()
  })

  it('filters by declared query parameters that name a field of the resource, and by no others', () => {
    const plan = planOf([query('tag', { type: 'string' }), query('colour'), query('name', { type: 'string' })])
    expect(plan.filters).toEqual(['tag', 'name'])
  })

  it('never filters by a parameter that took a role, but does by a field named like a role whose role is taken', () => {
    const plan = planOf([query('limit'), query('size'), query('offset')], array, { fields: ['size', 'offset'] })
    expect(plan).toMatchObject({ limit: 'limit', offset: 'offset', filters: ['size'] })
  })

  it('has no wrapper where the list answers a plain array, or names no success schema', () => {
    expect(planOf([]).wrapper).toBeUndefined()
    const components = { schemas: { Plants: array } }
    expect(planOf([], { $ref: '#/components/schemas/Plants' }, { components }).wrapper).toBeUndefined()
    const [operation] = operationsOf({ paths: { '/plants': { get: { responses: {} } } } })
    expect(compileListPlan(operation!, {}, resourceOf([]), undefined).wrapper).toBeUndefined()
  })

  it('has no wrapper where the success object holds no array', () => {
    expect(wrapperOf({ name: { type: 'string' }, meta: {} })).toBeUndefined()
  })

  it('takes the one array property of a wrapper as the items, whatever its name', () => {
    expect(wrapperOf({ meta: { type: 'object' }, entries: array })?.items).toBe('entries')
  })

  it('prefers items, data, results, records, content and values, then the resource name, then the first array', () => {
    expect(wrapperOf({ links: array, values: array, results: array })?.items).toBe('results')
    expect(wrapperOf({ links: array, plants: array })?.items).toBe('plants')
    expect(wrapperOf({ links: array, others: array })?.items).toBe('links')
  })

  it('finds the total among integer properties, by name preference', () => {
    expect(wrapperOf({ items: array, count: { type: 'integer' }, totalCount: { type: 'integer' } })?.total).toBe(
      'totalCount',
    )
    expect(wrapperOf({ items: array, total: { type: 'string' } })?.total).toBeUndefined()
  })

  it('finds a boolean hasMore, has_more or more', () => {
    expect(wrapperOf({ items: array, has_more: { type: 'boolean' } })?.hasMore).toBe('has_more')
    expect(wrapperOf({ items: array, more: { type: 'string' } })?.hasMore).toBeUndefined()
  })

  it('finds the next cursor property only when the list reads a cursor', () => {
    const properties = { items: array, nextPageToken: { type: 'string' } }
    expect(wrapperOf(properties)?.next).toBeUndefined()
    expect(wrapperOf(properties, [], [query('pageToken', { type: 'string' })])?.next).toBe('nextPageToken')
  })

  it('knows whether the next cursor may be null, in either version of OpenAPI', () => {
    const cursor = [query('cursor', { type: 'string' })]
    const nullable = (next: unknown) => wrapperOf({ items: array, next }, [], cursor)?.nextNullable
    expect(nullable({ type: ['string', 'null'] })).toBe(true)
    expect(nullable({ type: 'string', nullable: true })).toBe(true)
    expect(nullable({ anyOf: [{ type: 'string' }, { type: 'null' }] })).toBe(true)
    expect(nullable({ type: 'string' })).toBe(false)
  })

  it('echoes limit, offset and page where the wrapper declares integers under the same names', () => {
    const properties = { items: array, limit: { type: 'integer' }, offset: { type: 'integer' }, page: {} }
    const wrapper = wrapperOf(properties, [], [query('limit'), query('offset'), query('per_page')])
    expect(wrapper?.echoes).toEqual(['limit', 'offset'])
  })

  it('reads a wrapper composed with allOf, its required properties from every part', () => {
    const components = {
      schemas: {
        Paged: { type: 'object', required: ['total'], properties: { total: { type: 'integer' } } },
      },
    }
    const schema = {
      allOf: [{ $ref: '#/components/schemas/Paged' }, { required: ['items'], properties: { items: array } }],
    }
    expect(planOf([], schema, { components }).wrapper).toMatchObject({ items: 'items', total: 'total' })
    expect(planOf([], schema, { components }).wrapper?.required).toEqual(['total', 'items'])
  })

  it('reads the three lists of the Garden description', async () => {
    const spec = await loadSpec(garden, { files })
    const plan = (id: string, fields: string[]) => {
      const operation = describeOperations(spec).find((candidate) => candidate.id === id)!
      const pointer = operation.responses[0]!.content[0]!.schemaPointer
      return compileListPlan(operation, spec.document, resourceOf(fields), pointer)
    }
    expect(plan('listPlants', ['id', 'name', 'tag'])).toMatchObject({
      limit: 'limit',
      offset: 'offset',
      defaultLimit: 20,
      filters: ['tag'],
      wrapper: { items: 'items', total: 'total', required: ['items', 'total'] },
    })
    expect(plan('listGardens', ['id', 'name'])).toEqual({
      page: 'page',
      limit: 'per_page',
      defaultLimit: 10,
      filters: [],
    })
    expect(plan('listBeds', ['bedId', 'soil'])).toMatchObject({
      cursor: 'cursor',
      limit: 'limit',
      wrapper: { items: 'data', next: 'next_cursor', nextNullable: true },
    })
  })
})

describe('readListQuery and pageRecords', () => {
  const paged = planOf([query('limit'), query('offset'), query('tag', { type: 'string' })])

  it('pages by offset and limit, counting every record that matched', () => {
    const page = pageRecords(records(10), read(paged, 'offset=3&limit=4'))
    expect(ids(page)).toEqual([4, 5, 6, 7])
    expect(page).toMatchObject({ total: 10, offset: 3, limit: 4 })
  })

  it('lists every record when no limit is sent and none is declared by default', () => {
    expect(ids(pageRecords(records(5), read(paged, '')))).toEqual([1, 2, 3, 4, 5])
  })

  it('pages by the default limit when the request sends none', () => {
    const plan = planOf([query('limit', { type: 'integer', default: 2 })])
    expect(read(plan, '')).toEqual({ filters: [], offset: 0, limit: 2 })
  })

  it('pages by page and per_page, the first page being 1', () => {
    const plan = planOf([query('page'), query('per_page', { type: 'integer', default: 3 })])
    expect(ids(pageRecords(records(10), read(plan, 'page=2&per_page=4')))).toEqual([5, 6, 7, 8])
    expect(ids(pageRecords(records(10), read(plan, 'page=4')))).toEqual([10])
  })

  it('lists everything on page 1 and nothing after it where there is no page size', () => {
    const plan = planOf([query('page')])
    expect(ids(pageRecords(records(4), read(plan, 'page=1')))).toEqual([1, 2, 3, 4])
    expect(pageRecords(records(4), read(plan, 'page=2'))).toMatchObject({ records: [], total: 4 })
  })

  it('ignores numbers that are not whole and non-negative, and a page below 1', () => {
    expect(read(paged, 'offset=-2&limit=x')).toEqual({ filters: [], offset: 0, limit: undefined })
    expect(read(paged, 'offset=1.5&limit=')).toEqual({ filters: [], offset: 0, limit: undefined })
    expect(read(planOf([query('page'), query('limit')]), 'page=0&limit=2').offset).toBe(0)
  })

  it('accepts and ignores a parameter it has no use for', () => {
    const plan = planOf([query('limit'), query('sort', { type: 'string' })])
    expect(read(plan, 'sort=name&limit=1&colour=red')).toEqual({ filters: [], offset: 0, limit: 1 })
  })

  it('keeps the records whose field, as text, equals a value sent', () => {
    const plants = [
      { id: 1, tag: 'fern' },
      { id: 2, tag: 'cactus' },
      { id: 3, tag: 'fern' },
      { id: 4, tag: 7 },
    ]
    expect(ids(pageRecords(plants, read(paged, 'tag=fern')))).toEqual([1, 3])
    expect(ids(pageRecords(plants, read(paged, 'tag=7')))).toEqual([4])
    expect(pageRecords(plants, read(paged, 'tag=fern&limit=1'))).toMatchObject({ total: 2, records: [{ id: 1 }] })
  })

  it('matches any of the values of a repeated filter, and every filtered field', () => {
    const plants = [
      { id: 1, tag: 'fern', name: 'a' },
      { id: 2, tag: 'cactus', name: 'b' },
      { id: 3, tag: 'palm', name: 'a' },
    ]
    const plan = planOf([query('tag', { type: 'string' }), query('name', { type: 'string' })])
    expect(read(plan, 'tag=fern&tag=cactus').filters).toEqual([
      ['tag', 'fern'],
      ['tag', 'cactus'],
    ])
    expect(ids(pageRecords(plants, read(plan, 'tag=fern&tag=cactus')))).toEqual([1, 2])
    expect(ids(pageRecords(plants, read(plan, 'tag=fern&tag=palm&name=a')))).toEqual([1, 3])
    expect(ids(pageRecords(plants, read(plan, 'tag=palm&name=b')))).toEqual([])
  })

  it('never matches a record without the filtered field', () => {
    expect(ids(pageRecords([{ id: 1 }], read(paged, 'tag=undefined')))).toEqual([])
  })
})

describe('cursors', () => {
  const plan = planOf(
    [query('cursor', { type: 'string' }), query('limit')],
    { type: 'object', required: ['data'], properties: { data: array, next_cursor: { type: ['string', 'null'] } } },
    { fields: ['id'] },
  )
  const answer = (search: string) =>
    renderListPage(plan, pageRecords(records(7), read(plan, search)), {}, (record) => record) as {
      data: Array<{ id: number }>
      next_cursor: string | null
    }

  it('walks three pages by the cursor each one hands out, the last with a null cursor', () => {
    const first = answer('limit=3')
    const second = answer(`limit=3&cursor=${first.next_cursor}`)
    const third = answer(`limit=3&cursor=${second.next_cursor}`)
    expect([first, second, third].map((page) => page.data.map((plant) => plant.id))).toEqual([
      [1, 2, 3],
      [4, 5, 6],
      [7],
    ])
    expect(third.next_cursor).toBeNull()
    expect(first.next_cursor).not.toMatch(/\d/)
  })

  it('starts at the beginning for an empty cursor', () => {
    expect(answer('limit=2&cursor=').data).toEqual([{ id: 1 }, { id: 2 }])
  })

  it.each([
    'abc',
    '3',
    Buffer.from('o:-1').toString('base64url'),
    Buffer.from('o:01').toString('base64url'),
    `${Buffer.from('o:3').toString('base64url')}=`,
  ])('refuses a cursor it did not hand out (%s) with the given status', (cursor) => {
    const error = thrownBy(() => readListQuery(plan, new URLSearchParams({ cursor }), 422))
    expect(error).toBeInstanceOf(MockError)
    expect(error).toMatchObject({ status: 422, kind: 'invalid_request' })
    expect((error as MockError).details).toEqual([
      { path: 'query.cursor', message: 'is not a cursor from a previous page' },
    ])
  })
})

describe('renderListPage', () => {
  const page = (offset: number, limit: number | undefined, total = 5): ListQuery & { total: number } => ({
    filters: [],
    offset,
    limit,
    total,
  })
  const render = (plan: ListPlan, at: ReturnType<typeof page>, base: unknown = {}) =>
    renderListPage(plan, pageRecords(records(at.total), at), base, (record) => ({ ...(record as object), seen: 1 }))

  it('answers a plain array of the projected records', () => {
    expect(render(planOf([]), page(1, 2))).toEqual([
      { id: 2, seen: 1 },
      { id: 3, seen: 1 },
    ])
  })

  it('fills the items and total, takes other required fields from the base and leaves optional ones out', () => {
    const plan = planOf([query('limit')], {
      type: 'object',
      required: ['items', 'total', 'kind'],
      properties: { kind: { type: 'string' }, items: array, total: { type: 'integer' }, note: { type: 'string' } },
    })
    const base = { kind: 'plantList', items: [{ id: 99 }], total: 0, note: 'sampled' }
    const answer = render(plan, page(0, 1), base)
    expect(answer).toEqual({ kind: 'plantList', items: [{ id: 1, seen: 1 }], total: 5 })
    expect(Object.keys(answer as object)).toEqual(['kind', 'items', 'total'])
  })

  it('sets hasMore and echoes the limit, offset and page as they apply', () => {
    const properties = {
      items: array,
      has_more: { type: 'boolean' },
      limit: { type: 'integer' },
      offset: { type: 'integer' },
    }
    const plan = planOf([query('limit'), query('offset')], { type: 'object', properties })
    expect(render(plan, page(2, 2))).toMatchObject({ has_more: true, limit: 2, offset: 2 })
    expect(render(plan, page(4, 2))).toMatchObject({ has_more: false, limit: 2, offset: 4 })
    expect(render(plan, page(0, undefined))).not.toHaveProperty('limit')
    const paging = planOf([query('page'), query('limit')], { type: 'object', properties: { ...properties, page: {} } })
    expect(render(paging, page(4, 2))).toMatchObject({ page: 3, limit: 2 })
  })

  it('leaves out the next cursor at the end where it may not be null, or sends it empty where it is required', () => {
    const cursor = [query('after', { type: 'string' }), query('limit')]
    const wrapper = (required: string[]) => ({
      type: 'object',
      required,
      properties: { items: array, nextCursor: { type: 'string' } },
    })
    expect(render(planOf(cursor, wrapper([])), page(0, 5))).toEqual({ items: expect.any(Array) })
    expect(render(planOf(cursor, wrapper(['nextCursor'])), page(0, 5))).toMatchObject({ nextCursor: '' })
    expect(render(planOf(cursor, wrapper([])), page(0, 2))).toMatchObject({ nextCursor: expect.any(String) })
  })
})

describe('describeListPlan', () => {
  it('says which parameters page and filter the list, and what the answer holds', () => {
    const plants = planOf([query('limit', { type: 'integer', default: 20 }), query('offset'), query('tag', {})], {
      type: 'object',
      properties: { items: array, total: { type: 'integer' } },
    })
    expect(describeListPlan(plants)).toBe(
      'pages by limit (default 20), offset; filters by tag; answers { items, total }',
    )
    expect(describeListPlan(planOf([]))).toBe('lists every record; no filters; answers an array')
    const beds = planOf([query('cursor', {}), query('limit')], {
      type: 'object',
      properties: { data: array, next_cursor: { type: 'string' }, hasMore: { type: 'boolean' } },
    })
    expect(describeListPlan(beds)).toBe('pages by cursor, limit; no filters; answers { data, next_cursor, hasMore }')
  })
})

function thrownBy(action: () => unknown): unknown {
  try {
    action()
  } catch (error) {
    return error
  }
  throw new Error('expected a throw')
}
