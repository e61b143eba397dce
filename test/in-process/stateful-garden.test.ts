/**
 * Stateful mode (#15) on the Garden description (`test/descriptions/stateful/garden.yaml`), through
 * `createApp().request()`: every rule of the issue once: resources and their operations, identity,
 * conflicts and misses, answers built from records, lists, nested resources, sessions, seed data,
 * steering (admin API and `mock.state`), and what stays as without state. Every admin answer is
 * checked against `admin-openapi.yaml` (test/support/stateful.ts).
 */
import { copyFile, mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { MockError } from '../../src/errors/index.js'
import type { AppOptions, MockApp } from '../../src/index.js'
import { createApp } from '../support/store-under-test.js'
import { type AdminOracle, createAdminOracle } from '../support/admin-oracle.js'
import { expectStartupError } from '../support/startup-error.js'
import {
  type Answer,
  expectError,
  gardenSpec,
  sendInProcess,
  type StatefulClient,
  statefulClient,
} from '../support/stateful.js'
import { removeTempDirs, tempDir } from '../support/temp-dirs.js'

let oracle: AdminOracle

beforeAll(async () => {
  oracle = await createAdminOracle()
})

afterEach(removeTempDirs)

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const ABSENT_GARDEN = '0b8f7e0e-1111-4222-8333-444455556666'
const MERGE_PATCH = { 'content-type': 'application/merge-patch+json' }
const JSON_BODY = { 'content-type': 'application/json' }

async function garden(options: AppOptions = {}): Promise<{ app: MockApp; client: StatefulClient }> {
  const app = await createApp({ spec: gardenSpec, stateful: true, ...options })
  return { app, client: statefulClient(sendInProcess(app), oracle) }
}

/** A fixtures folder holding `data/<file>` with `content` (a string as it is, anything else as JSON). */
async function seedFolder(files: Record<string, unknown>): Promise<string> {
  return tempDir(
    'stateful-seed-',
    Object.fromEntries(Object.entries(files).map(([name, content]) => [`data/${name}`, content])),
  )
}

async function createdGarden(client: StatefulClient, name = 'Kitchen garden'): Promise<Record<string, any>> {
  const answer = await client.call('POST', '/gardens', { name })
  expect(answer.status, answer.text).toBe(201)
  return answer.json
}

const names = (answer: Answer, field = 'items') =>
  (field === '' ? answer.json : answer.json[field]).map((record: { name: string }) => record.name)

describe('stateful mode on the Garden description: resources', () => {
  it('start-up prints one line per resource found, with its operations and id field', async () => {
    const lines: string[] = []
    await createApp({
      spec: gardenSpec,
      stateful: true,
      logger: { info: (line) => lines.push(line), warn: (line) => lines.push(line), error: (line) => lines.push(line) },
    })
    const resources = lines.filter((line) => line.startsWith('resource '))
    expect(resources).toHaveLength(4)
    expect(resources[0]).toMatch(
      /^resource plants: create, list, read, replace, merge, remove \(id field id, integer\)/,
    )
    expect(resources[1]).toMatch(/^resource gardens: create, list, read, replace, remove \(id field id, uuid\)/)
    expect(resources[2]).toMatch(/^resource beds: create, list, read, remove \(id field bedId, integer\)/)
    expect(resources[3]).toMatch(/^resource packets: create, list, read \(id field sku, string\)/)
    expect(lines.join('\n')).not.toMatch(/legacy|water|status/)
  })

  it('without stateful no resource line is printed and a create is answered from the description', async () => {
    const lines: string[] = []
    const app = await createApp({
      spec: gardenSpec,
      logger: { info: (line) => lines.push(line), warn: (line) => lines.push(line), error: (line) => lines.push(line) },
    })
    const client = statefulClient(sendInProcess(app), oracle)
    expect(lines.filter((line) => line.startsWith('resource '))).toEqual([])
    const created = await client.call('POST', '/plants', { name: 'Fern' })
    expect(created.status).toBe(201)
    expect((await client.call('GET', '/plants/1')).status).toBe(200)
    expectError(await client.admin('GET', '/state'), 409)
  })
})

describe('stateful mode on the Garden description: create, read, replace, merge, remove', () => {
  it('POST /plants stores the plant and answers 201 with it; GET /plants/{id} reads it back', async () => {
    const { app, client } = await garden()
    const created = await client.call('POST', '/plants', { id: 7, name: 'Fern', tag: 'shade' })
    expect(created.status).toBe(201)
    expect(created.json).toEqual({ id: 7, name: 'Fern', tag: 'shade' })
    const read = await client.call('GET', '/plants/7')
    expect(read.status).toBe(200)
    expect(read.json).toEqual({ id: 7, name: 'Fern', tag: 'shade' })
    expect(app.mock.requests().map((entry) => entry.data)).toEqual(['created plants/7', undefined])
  })

  it('a plant without an id gets the next integer after the highest one', async () => {
    const { client } = await garden()
    expect((await client.call('POST', '/plants', { name: 'Fern' })).json.id).toBe(1)
    expect((await client.call('POST', '/plants', { id: 10, name: 'Ash' })).json.id).toBe(10)
    expect((await client.call('POST', '/plants', { name: 'Elm' })).json.id).toBe(11)
    expect((await client.call('DELETE', '/plants/11')).status).toBe(204)
    expect((await client.call('POST', '/plants', { id: 3, name: 'Oak' })).json.id).toBe(3)
    expect((await client.call('POST', '/plants', { name: 'Yew' })).json.id).toBe(11)
    expect((await client.records('plants')).map((plant) => plant.id)).toEqual([1, 10, 3, 11])
  })

  it('the state limit counts what a collection holds now: a delete makes room, a replace of a kept plant takes none', async () => {
    const { client } = await garden({ stateLimit: 2 })
    await client.call('POST', '/plants', { name: 'Fern' })
    await client.call('POST', '/plants', { name: 'Ash' })
    expectError(await client.call('POST', '/plants', { name: 'Elm' }), 400, 'at most 2 plants')
    expect((await client.call('PUT', '/plants/2', { name: 'Ash tree' })).status).toBe(200)
    expectError(await client.call('PUT', '/plants/3', { name: 'Elm' }), 400, 'at most 2 plants')
    expect((await client.call('DELETE', '/plants/1')).status).toBe(204)
    expect((await client.call('POST', '/plants', { name: 'Elm' })).json.id).toBe(3)
    expectError(await client.call('POST', '/plants', { name: 'Oak' }), 400, 'at most 2 plants')
  })

  it('a garden gets a uuid of its own, the format its id parameter declares', async () => {
    const { client } = await garden()
    const first = await createdGarden(client, 'One')
    const second = await createdGarden(client, 'Two')
    expect(first.id).toMatch(UUID)
    expect(second.id).toMatch(UUID)
    expect(second.id).not.toBe(first.id)
    expect((await client.call('GET', `/gardens/${first.id}`)).json.name).toBe('One')
    expect((await client.records('gardens')).map((record) => record.id)).toEqual([first.id, second.id])
  })

  it('x-mock-resource names the packets resource and makes sku its key, though the item path says code', async () => {
    const { app, client } = await garden()
    expect((await client.call('POST', '/seed-packets', { sku: 'TOM-1', variety: 'Moneymaker' })).status).toBe(201)
    expect((await client.call('GET', '/seed-packets/TOM-1')).json).toEqual({ sku: 'TOM-1', variety: 'Moneymaker' })
    expectError(await client.call('GET', '/seed-packets/TOM-2'), 404, 'There is no packet with id TOM-2.')
    expectError(
      await client.call('POST', '/seed-packets', { sku: 'TOM-1', variety: 'Gardeners Delight' }),
      400,
      'A packet with id TOM-1 already exists.',
    )
    expect(await client.records('packets')).toEqual([{ sku: 'TOM-1', variety: 'Moneymaker' }])
    expect(app.mock.requests()[0]!.data).toBe('created packets/TOM-1')
  })

  it('PUT /plants/{id} of an absent plant creates it with the declared 201, then replaces it with 200', async () => {
    const { app, client } = await garden()
    const created = await client.call('PUT', '/plants/5', { name: 'Fern', tag: 'shade' })
    expect(created.status).toBe(201)
    expect(created.json).toEqual({ id: 5, name: 'Fern', tag: 'shade' })
    const replaced = await client.call('PUT', '/plants/5', { name: 'Royal fern' })
    expect(replaced.status).toBe(200)
    // A replacement, not a merge: the tag the new body leaves out is gone.
    expect(replaced.json).toEqual({ id: 5, name: 'Royal fern' })
    expect(await client.records('plants')).toEqual([{ id: 5, name: 'Royal fern' }])
    expect(app.mock.requests().map((entry) => entry.data)).toEqual(['created plants/5', 'replaced plants/5'])
  })

  it('PUT /gardens/{id} of an absent garden answers 404 and creates nothing: it declares no 201', async () => {
    const { client } = await garden()
    expectError(
      await client.call('PUT', `/gardens/${ABSENT_GARDEN}`, { name: 'Nowhere' }),
      404,
      `There is no garden with id ${ABSENT_GARDEN}.`,
    )
    expect(await client.records('gardens')).toEqual([])
    const existing = await createdGarden(client, 'Before')
    const replaced = await client.call('PUT', `/gardens/${existing.id}`, { name: 'After', location: 'back yard' })
    expect(replaced.status).toBe(200)
    expect(replaced.json).toMatchObject({ id: existing.id, name: 'After', location: 'back yard' })
  })

  it.each([
    ['application/merge-patch+json', MERGE_PATCH],
    ['application/json', JSON_BODY],
  ])('PATCH as %s merges the body into the record', async (_type, headers) => {
    const { app, client } = await garden()
    await client.call('POST', '/plants', { id: 1, name: 'Fern', tag: 'shade' })
    const patched = await client.call('PATCH', '/plants/1', { tag: 'sun' }, headers)
    expect(patched.status).toBe(200)
    expect(patched.json).toEqual({ id: 1, name: 'Fern', tag: 'sun' })
    expect((await client.call('PATCH', '/plants/1', { name: 'Sun fern' }, headers)).json).toEqual({
      id: 1,
      name: 'Sun fern',
      tag: 'sun',
    })
    expect(await client.records('plants')).toEqual([{ id: 1, name: 'Sun fern', tag: 'sun' }])
    expect(app.mock.requests().map((entry) => entry.data)).toEqual([
      'created plants/1',
      'updated plants/1',
      'updated plants/1',
    ])
  })

  it('PUT keys the record by its path, whatever id the body names', async () => {
    const { client } = await garden()
    await client.call('POST', '/plants', { id: 1, name: 'Fern' })
    expect((await client.call('PUT', '/plants/1', { id: 9, name: 'Royal fern' })).json).toEqual({
      id: 1,
      name: 'Royal fern',
    })
    expectError(await client.call('GET', '/plants/9'), 404)
    expect(await client.records('plants')).toEqual([{ id: 1, name: 'Royal fern' }])
  })

  it('PATCH cannot move a record: an id in the patch leaves its key as it was', async () => {
    const { client } = await garden()
    await client.call('POST', '/plants', { id: 1, name: 'Fern' })
    expect((await client.call('PATCH', '/plants/1', { id: 5, tag: 'shade' }, MERGE_PATCH)).json).toEqual({
      id: 1,
      name: 'Fern',
      tag: 'shade',
    })
    expect((await client.call('GET', '/plants/1')).status).toBe(200)
    expectError(await client.call('GET', '/plants/5'), 404)
  })

  it('creates sent in parallel without an id each get an id of their own', async () => {
    const { client } = await garden()
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, n) => client.call('POST', '/plants', { name: `Plant ${n}` })),
    )
    const ids = answers.map((answer) => answer.json.id as number).sort((x, y) => x - y)
    expect(ids).toEqual(Array.from({ length: 20 }, (_, n) => n + 1))
    expect(await client.records('plants')).toHaveLength(20)
  })

  it('DELETE /plants/{id} answers 204 and the plant is gone: read, merge and delete then answer 404', async () => {
    const { app, client } = await garden()
    await client.call('POST', '/plants', { id: 1, name: 'Fern' })
    const removed = await client.call('DELETE', '/plants/1')
    expect(removed.status).toBe(204)
    expect(removed.text).toBe('')
    expectError(await client.call('GET', '/plants/1'), 404, 'There is no plant with id 1.')
    expectError(await client.call('PATCH', '/plants/1', { tag: 'x' }, MERGE_PATCH), 404)
    expectError(await client.call('DELETE', '/plants/1'), 404)
    expect(await client.records('plants')).toEqual([])
    expect(app.mock.requests().map((entry) => entry.data)).toEqual([
      'created plants/1',
      'deleted plants/1',
      undefined,
      undefined,
      undefined,
    ])
  })

  it('DELETE /gardens/{id} answers 200 with the garden it removed, as it declares', async () => {
    const { client } = await garden()
    const made = await createdGarden(client, 'Gone soon')
    const removed = await client.call('DELETE', `/gardens/${made.id}`)
    expect(removed.status).toBe(200)
    expect(removed.json).toEqual(made)
    expectError(await client.call('GET', `/gardens/${made.id}`), 404)
  })

  it.each([
    ['GET', '/plants/99', undefined, 'plant', '99'],
    ['PATCH', '/plants/99', { tag: 'x' }, 'plant', '99'],
    ['DELETE', '/plants/99', undefined, 'plant', '99'],
    ['GET', `/gardens/${ABSENT_GARDEN}`, undefined, 'garden', ABSENT_GARDEN],
    ['DELETE', `/gardens/${ABSENT_GARDEN}`, undefined, 'garden', ABSENT_GARDEN],
    ['GET', '/seed-packets/NOPE', undefined, 'packet', 'NOPE'],
  ])('%s %s of a missing record answers 404 with the Error shape naming it', async (method, path, body, what, id) => {
    const { client } = await garden()
    expectError(await client.call(method, path, body, MERGE_PATCH), 404, `There is no ${what} with id ${id}.`)
  })

  it('a bed created with a taken bedId answers the declared 409 and keeps the first bed', async () => {
    const { client } = await garden()
    const { id } = await createdGarden(client)
    expect((await client.call('POST', `/gardens/${id}/beds`, { bedId: 1, soil: 'clay' })).status).toBe(201)
    expectError(
      await client.call('POST', `/gardens/${id}/beds`, { bedId: 1, soil: 'sand' }),
      409,
      'A bed with id 1 already exists.',
    )
    expect((await client.call('GET', `/gardens/${id}/beds/1`)).json).toEqual({ bedId: 1, soil: 'clay' })
  })

  it('a plant created with a taken id answers 400, the violation status, as POST /plants declares no 409', async () => {
    const { client } = await garden()
    await client.call('POST', '/plants', { id: 1, name: 'Fern' })
    expectError(
      await client.call('POST', '/plants', { id: 1, name: 'Other' }),
      400,
      'A plant with id 1 already exists.',
    )
    expect(await client.records('plants')).toEqual([{ id: 1, name: 'Fern' }])
  })

  it('an int64 id in the path beyond 2^53 is stored and answered as written', async () => {
    const { client } = await garden()
    const created = await client.call('PUT', '/plants/9223372036854775807', { name: 'Big' })
    expect(created.status, created.text).toBe(201)
    expect(created.text).toBe('{"id":9223372036854775807,"name":"Big"}')
    const read = await client.call('GET', '/plants/9223372036854775807')
    expect(read.text).toBe('{"id":9223372036854775807,"name":"Big"}')
    expectError(await client.call('GET', '/plants/9223372036854775806'), 404)
    const listed = await client.call('GET', '/plants')
    expect(listed.text).toBe('{"items":[{"id":9223372036854775807,"name":"Big"}],"total":1}')
  })

  it('an int64 id in the body beyond 2^53 is answered as written', async () => {
    const { client } = await garden()
    const created = await client.call('POST', '/plants', '{"id":9007199254740993,"name":"Big"}')
    expect(created.text).toBe('{"id":9007199254740993,"name":"Big"}')
    expect((await client.call('GET', '/plants/9007199254740993')).text).toBe('{"id":9007199254740993,"name":"Big"}')
    expectError(await client.call('GET', '/plants/9007199254740992'), 404)
  })
})

describe('stateful mode on the Garden description: answers built from the record', () => {
  it('a required answer field the request never sends (createdAt) is made once, stored, and read back the same', async () => {
    const { client } = await garden()
    const created = await createdGarden(client, 'Herbs')
    expect(typeof created.createdAt).toBe('string')
    expect(Number.isNaN(Date.parse(created.createdAt))).toBe(false)
    expect((await client.call('GET', `/gardens/${created.id}`)).json).toEqual(created)
    expect((await client.call('GET', '/gardens')).json).toEqual([created])
    expect(await client.records('gardens')).toEqual([{ id: created.id, name: 'Herbs', createdAt: created.createdAt }])
  })

  it("the server's fields (an id and a createdAt the create schema does not declare) are the mock's, not the body's", async () => {
    const { client } = await garden()
    const answer = await client.call('POST', '/gardens', { id: 'not-a-uuid', createdAt: 'yesterday', name: 'G' })
    expect(answer.status).toBe(201)
    expect(answer.headers.get('x-mock-violations')).toBeNull()
    expect(answer.json.id).toMatch(UUID)
    expect(answer.json.createdAt).not.toBe('yesterday')
    expect((await client.call('GET', `/gardens/${answer.json.id}`)).json).toEqual(answer.json)
  })

  it("a replace keeps the server's fields of the record it replaces (createdAt), and takes the rest from the body", async () => {
    const { app, client } = await garden()
    const created = await createdGarden(client, 'Herbs')
    app.mock.state.set('gardens', [{ ...created, createdAt: '2020-01-02T03:04:05Z' }])
    const replaced = await client.call('PUT', `/gardens/${created.id}`, {
      name: 'Roses',
      createdAt: '1999-01-01T00:00:00Z',
    })
    expect(replaced.status).toBe(200)
    expect(replaced.json).toEqual({ id: created.id, name: 'Roses', createdAt: '2020-01-02T03:04:05Z' })
  })

  it('a field the answer schema does not declare is left out of every answer and kept in the record', async () => {
    const { client } = await garden()
    const created = await client.call('POST', '/plants', { name: 'Fern', colour: 'green' })
    expect(created.json).toEqual({ id: 1, name: 'Fern' })
    expect((await client.call('GET', '/plants/1')).json).toEqual({ id: 1, name: 'Fern' })
    expect((await client.call('GET', '/plants')).json.items).toEqual([{ id: 1, name: 'Fern' }])
    expect(await client.records('plants')).toEqual([{ id: 1, name: 'Fern', colour: 'green' }])
  })

  it('under the dynamic scenario stored records are still answered as stored', async () => {
    const { app, client } = await garden()
    await client.call('POST', '/plants', { id: 1, name: 'Fern', tag: 'shade' })
    app.mock.useScenario('dynamic')
    expect((await client.call('GET', '/plants/1')).json).toEqual({ id: 1, name: 'Fern', tag: 'shade' })
    expect((await client.call('GET', '/plants')).json).toEqual({
      items: [{ id: 1, name: 'Fern', tag: 'shade' }],
      total: 1,
    })
    expect((await client.call('POST', '/plants', { name: 'Ivy' })).json).toEqual({ id: 2, name: 'Ivy' })
  })

  it('every answer made from records conforms to the description: the journal notes no response violation', async () => {
    const { app, client } = await garden()
    const { id } = await createdGarden(client)
    await client.call('POST', '/plants', { name: 'Fern', colour: 'green' })
    await client.call('PUT', '/plants/2', { name: 'Ivy' })
    await client.call('PATCH', '/plants/2', { tag: 'climber' }, MERGE_PATCH)
    await client.call('GET', '/plants?limit=1')
    await client.call('GET', '/plants/1')
    await client.call('POST', `/gardens/${id}/beds`, { soil: 'loam' })
    await client.call('GET', `/gardens/${id}/beds?limit=1`)
    await client.call('GET', '/gardens')
    await client.call('POST', '/seed-packets', { sku: 'A', variety: 'B' })
    await client.call('GET', '/seed-packets')
    await client.call('DELETE', '/plants/2')
    await client.call('DELETE', `/gardens/${id}`)
    const entries = app.mock.requests()
    expect(entries).toHaveLength(13)
    for (const entry of entries) {
      expect(entry.status, `${entry.method} ${entry.path}`).toBeLessThan(300)
      expect(entry.responseViolations, `${entry.method} ${entry.path}`).toBeUndefined()
    }
  })
})

describe('stateful mode on the Garden description: lists', () => {
  async function plants(client: StatefulClient) {
    for (const [name, tag] of [
      ['Oak', 'tree'],
      ['Fern', 'shade'],
      ['Ash', 'tree'],
      ['Ivy', 'climber'],
      ['Elm', 'tree'],
    ])
      expect((await client.call('POST', '/plants', { name, tag })).status).toBe(201)
  }

  it('GET /plants answers every plant in the {items, total} wrapper, in the order they were made', async () => {
    const { client } = await garden()
    expect((await client.call('GET', '/plants')).json).toEqual({ items: [], total: 0 })
    await plants(client)
    const listed = await client.call('GET', '/plants')
    expect(listed.status).toBe(200)
    expect(names(listed)).toEqual(['Oak', 'Fern', 'Ash', 'Ivy', 'Elm'])
    expect(listed.json.total).toBe(5)
    expect(listed.json.items[0]).toEqual({ id: 1, name: 'Oak', tag: 'tree' })
  })

  it('limit and offset cut the page; total counts every plant', async () => {
    const { client } = await garden()
    await plants(client)
    const page = await client.call('GET', '/plants?limit=2&offset=1')
    expect(names(page)).toEqual(['Fern', 'Ash'])
    expect(page.json.total).toBe(5)
    expect(names(await client.call('GET', '/plants?offset=4'))).toEqual(['Elm'])
    expect(names(await client.call('GET', '/plants?offset=9'))).toEqual([])
  })

  it('without a limit the page holds the declared default (20) and total counts every plant', async () => {
    const { client } = await garden()
    for (let n = 1; n <= 25; n++) await client.call('POST', '/plants', { name: `P${n}` })
    const first = await client.call('GET', '/plants')
    expect(first.json.items).toHaveLength(20)
    expect(first.json.total).toBe(25)
    expect(names(await client.call('GET', '/plants?offset=20'))).toEqual(['P21', 'P22', 'P23', 'P24', 'P25'])
  })

  it('tag filters by equality on the record field; total counts the matches', async () => {
    const { client } = await garden()
    await plants(client)
    const trees = await client.call('GET', '/plants?tag=tree')
    expect(names(trees)).toEqual(['Oak', 'Ash', 'Elm'])
    expect(trees.json.total).toBe(3)
    const second = await client.call('GET', '/plants?tag=tree&limit=1&offset=1')
    expect(names(second)).toEqual(['Ash'])
    expect(second.json.total).toBe(3)
    expect((await client.call('GET', '/plants?tag=cactus')).json).toEqual({ items: [], total: 0 })
  })

  it('a repeated filter parameter matches any of its values', async () => {
    const { client } = await garden()
    await plants(client)
    const listed = await client.call('GET', '/plants?tag=shade&tag=climber')
    expect(names(listed)).toEqual(['Fern', 'Ivy'])
    expect(listed.json.total).toBe(2)
  })

  it('a query parameter the list does not declare is accepted and ignored', async () => {
    const { client } = await garden()
    await plants(client)
    const plain = await client.call('GET', '/plants')
    const odd = await client.call('GET', '/plants?colour=green&sort=name')
    expect(odd.status).toBe(200)
    expect(odd.json).toEqual(plain.json)
  })

  it('GET /gardens pages a plain array by page and per_page (10 by default)', async () => {
    const { client } = await garden()
    for (let n = 1; n <= 12; n++) await createdGarden(client, `G${n}`)
    const first = await client.call('GET', '/gardens')
    expect(Array.isArray(first.json)).toBe(true)
    expect(names(first, '')).toEqual(['G1', 'G2', 'G3', 'G4', 'G5', 'G6', 'G7', 'G8', 'G9', 'G10'])
    expect(names(await client.call('GET', '/gardens?page=2'), '')).toEqual(['G11', 'G12'])
    expect(names(await client.call('GET', '/gardens?page=2&per_page=5'), '')).toEqual(['G6', 'G7', 'G8', 'G9', 'G10'])
    expect(names(await client.call('GET', '/gardens?page=3&per_page=5'), '')).toEqual(['G11', 'G12'])
    expect((await client.call('GET', '/gardens?page=4&per_page=5')).json).toEqual([])
  })

  it('the beds cursor walks every bed once, in order, and the last page says next_cursor null', async () => {
    const { client } = await garden()
    const { id } = await createdGarden(client)
    for (const soil of ['clay', 'loam', 'sand', 'clay', 'loam'])
      expect((await client.call('POST', `/gardens/${id}/beds`, { soil })).status).toBe(201)
    const pages: number[][] = []
    let cursor: string | null = null
    do {
      const query: string = cursor === null ? '?limit=2' : `?limit=2&cursor=${encodeURIComponent(cursor)}`
      const page = await client.call('GET', `/gardens/${id}/beds${query}`)
      expect(page.status, page.text).toBe(200)
      expect(Object.keys(page.json).sort()).toEqual(['data', 'next_cursor'])
      pages.push(page.json.data.map((bed: { bedId: number }) => bed.bedId))
      cursor = page.json.next_cursor
    } while (cursor !== null && pages.length < 10)
    expect(pages).toEqual([[1, 2], [3, 4], [5]])
    expect((await client.call('GET', `/gardens/${id}/beds`)).json).toEqual({
      data: [
        { bedId: 1, soil: 'clay' },
        { bedId: 2, soil: 'loam' },
        { bedId: 3, soil: 'sand' },
        { bedId: 4, soil: 'clay' },
        { bedId: 5, soil: 'loam' },
      ],
      next_cursor: null,
    })
  })

  it('a cursor the mock did not hand out answers the violation status (422) naming query.cursor', async () => {
    const { client } = await garden()
    const { id } = await createdGarden(client)
    expectError(await client.call('GET', `/gardens/${id}/beds?cursor=made-up`), 422, 'query.cursor')
  })
})

describe('stateful mode on the Garden description: nested resources', () => {
  it("beds are scoped by their garden: one garden's beds are neither listed nor read under another", async () => {
    const { client } = await garden()
    const a = await createdGarden(client, 'A')
    const b = await createdGarden(client, 'B')
    await client.call('POST', `/gardens/${a.id}/beds`, { soil: 'clay' })
    await client.call('POST', `/gardens/${a.id}/beds`, { soil: 'loam' })
    // Ids count per garden: B's first bed is 1 again, and does not conflict with A's.
    const inB = await client.call('POST', `/gardens/${b.id}/beds`, { soil: 'sand' })
    expect(inB.json).toEqual({ bedId: 1, soil: 'sand' })
    expect((await client.call('GET', `/gardens/${a.id}/beds`)).json.data).toEqual([
      { bedId: 1, soil: 'clay' },
      { bedId: 2, soil: 'loam' },
    ])
    expect((await client.call('GET', `/gardens/${b.id}/beds`)).json.data).toEqual([{ bedId: 1, soil: 'sand' }])
    expectError(await client.call('GET', `/gardens/${b.id}/beds/2`), 404, 'There is no bed with id 2.')
    expectError(await client.call('DELETE', `/gardens/${b.id}/beds/2`), 404)
    expect((await client.call('GET', `/gardens/${a.id}/beds/2`)).status).toBe(200)
    expect(await client.records('beds')).toEqual([
      { $scope: { gardenId: a.id }, bedId: 1, soil: 'clay' },
      { $scope: { gardenId: a.id }, bedId: 2, soil: 'loam' },
      { $scope: { gardenId: b.id }, bedId: 1, soil: 'sand' },
    ])
  })

  it("the journal names a nested record's garden with what the request did to it", async () => {
    const { app, client } = await garden()
    const a = await createdGarden(client, 'A')
    await client.call('POST', `/gardens/${a.id}/beds`, { soil: 'clay' })
    await client.call('DELETE', `/gardens/${a.id}/beds/1`)
    expect(app.mock.requests().map((entry) => entry.data)).toEqual([
      `created gardens/${a.id}`,
      `created beds/1 (gardenId ${a.id})`,
      `deleted beds/1 (gardenId ${a.id})`,
    ])
  })

  it('a bed needs its garden: create and list under an unknown garden answer 404 naming the garden', async () => {
    const { client } = await garden()
    expectError(
      await client.call('POST', `/gardens/${ABSENT_GARDEN}/beds`, { soil: 'clay' }),
      404,
      `There is no garden with id ${ABSENT_GARDEN}.`,
    )
    expectError(await client.call('GET', `/gardens/${ABSENT_GARDEN}/beds`), 404, ABSENT_GARDEN)
    expect(await client.records('beds')).toEqual([])
  })
})

describe('stateful mode on the Garden description: sessions', () => {
  it("two sessions creating plants in parallel never see each other's plants", async () => {
    const { client } = await garden()
    const sessions = ['worker-a', 'worker-b']
    const creates = []
    for (let n = 1; n <= 10; n++)
      for (const session of sessions)
        creates.push(client.call('POST', '/plants', { name: `${session} ${n}` }, { 'x-mock-session': session }))
    const answers = await Promise.all(creates)
    for (const answer of answers) expect(answer.status, answer.text).toBe(201)
    for (const session of sessions) {
      const listed = await client.call('GET', '/plants?limit=100', undefined, { 'x-mock-session': session })
      expect(listed.json.total).toBe(10)
      expect(listed.json.items.every((plant: { name: string }) => plant.name.startsWith(session))).toBe(true)
      // Each session counts its own ids from 1.
      expect(listed.json.items.map((plant: { id: number }) => plant.id).sort((x: number, y: number) => x - y)).toEqual([
        1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
      ])
      expect(await client.records('plants', session)).toHaveLength(10)
    }
    expect((await client.call('GET', '/plants')).json).toEqual({ items: [], total: 0 })
  })

  it('each session starts from the seed, and POST /__mock/reset?session=a resets only session a', async () => {
    const fixtures = await seedFolder({ 'plants.json': [{ id: 1, name: 'Seeded fern', tag: 'shade' }] })
    const { client } = await garden({ fixtures })
    const a = { 'x-mock-session': 'a' }
    const b = { 'x-mock-session': 'b' }
    await client.call('POST', '/plants', { name: 'Only in a' }, a)
    await client.call('DELETE', '/plants/1', undefined, b)
    await client.call('POST', '/plants', { name: 'Without a session' })
    expect(names(await client.call('GET', '/plants', undefined, a))).toEqual(['Seeded fern', 'Only in a'])
    expect(names(await client.call('GET', '/plants', undefined, b))).toEqual([])
    expect(names(await client.call('GET', '/plants', undefined, { 'x-mock-session': 'c' }))).toEqual(['Seeded fern'])

    const reset = await client.admin('POST', '/reset?session=a')
    expect(reset.status).toBe(200)
    expect(names(await client.call('GET', '/plants', undefined, a))).toEqual(['Seeded fern'])
    expect(names(await client.call('GET', '/plants', undefined, b))).toEqual([])
    expect(names(await client.call('GET', '/plants'))).toEqual(['Seeded fern', 'Without a session'])
  })

  it('an empty X-Mock-Session is no session, as the admin API reads it', async () => {
    const { client } = await garden()
    await client.call('POST', '/plants', { name: 'Fern' }, { 'x-mock-session': '' })
    expect(names(await client.call('GET', '/plants'))).toEqual(['Fern'])
    expect(await client.records('plants')).toEqual([{ id: 1, name: 'Fern' }])
    expect((await client.admin('GET', '/health')).json.state).toEqual({ sessions: 0, records: 1 })
  })

  it('at most 10,000 sessions keep data of their own: the least recently used is dropped first', async () => {
    const { client } = await garden()
    const create = (session: string) => client.call('POST', '/plants', { name: session }, { 'x-mock-session': session })
    for (let n = 0; n < 10_000; n++) expect((await create(`s${n}`)).status).toBe(201)
    expect((await client.admin('GET', '/health')).json.state).toEqual({ sessions: 10_000, records: 10_000 })
    // s0 is used again, so s1 is now the least recently used.
    expect(names(await client.call('GET', '/plants', undefined, { 'x-mock-session': 's0' }))).toEqual(['s0'])
    await create('one more')
    expect((await client.admin('GET', '/health')).json.state).toEqual({ sessions: 10_000, records: 10_000 })
    expect(await client.records('plants', 's1')).toEqual([])
    expect(await client.records('plants', 's0')).toEqual([{ id: 1, name: 's0' }])
    expect(await client.records('plants', 's2')).toEqual([{ id: 1, name: 's2' }])
    expect(await client.records('plants', 'one more')).toEqual([{ id: 1, name: 'one more' }])
  }, 60_000)

  it('GET /__mock/state reads a session named by X-Mock-Session or ?session=, and ?session= wins', async () => {
    const { client } = await garden()
    await client.call('POST', '/plants', { name: 'In a' }, { 'x-mock-session': 'a' })
    await client.call('POST', '/plants', { name: 'In b' }, { 'x-mock-session': 'b' })
    const byHeader = await client.admin('GET', '/state?resource=plants', { headers: { 'x-mock-session': 'a' } })
    expect(byHeader.json).toEqual({ session: 'a', resources: { plants: [{ id: 1, name: 'In a' }] } })
    const byQuery = await client.admin('GET', '/state?resource=plants&session=b', {
      headers: { 'x-mock-session': 'a' },
    })
    expect(byQuery.json).toEqual({ session: 'b', resources: { plants: [{ id: 1, name: 'In b' }] } })
    const whole = await client.admin('GET', '/state')
    expect(whole.json).toEqual({ resources: { plants: [], gardens: [], beds: [], packets: [] } })
  })
})

describe('stateful mode on the Garden description: seed data', () => {
  it('fixtures/data/plants.json beside the description is listed at start-up and restored by reset', async () => {
    const dir = await tempDir('stateful-garden-')
    await copyFile(gardenSpec, join(dir, 'garden.yaml'))
    await mkdir(join(dir, 'fixtures', 'data'), { recursive: true })
    await writeFile(
      join(dir, 'fixtures', 'data', 'plants.json'),
      JSON.stringify([
        { id: 4, name: 'Seeded fern', tag: 'shade' },
        { name: 'Seeded ivy', note: 'kept' },
      ]),
    )
    const app = await createApp({ spec: join(dir, 'garden.yaml'), stateful: true })
    const client = statefulClient(sendInProcess(app), oracle)
    // A seed record without an id gets one, as a create would give it.
    expect((await client.call('GET', '/plants')).json).toEqual({
      items: [
        { id: 4, name: 'Seeded fern', tag: 'shade' },
        { id: 5, name: 'Seeded ivy' },
      ],
      total: 2,
    })
    expect((await client.call('POST', '/plants', { name: 'New' })).json.id).toBe(6)
    await client.call('DELETE', '/plants/4')
    expect(names(await client.call('GET', '/plants'))).toEqual(['Seeded ivy', 'New'])
    expect((await client.admin('POST', '/reset')).status).toBe(200)
    expect(names(await client.call('GET', '/plants'))).toEqual(['Seeded fern', 'Seeded ivy'])
    expect(await client.records('plants')).toEqual([
      { id: 4, name: 'Seeded fern', tag: 'shade' },
      { id: 5, name: 'Seeded ivy', note: 'kept' },
    ])
  })

  it('a seed record that breaks the create schema stops start-up with state_seed_invalid naming the file, index and field', async () => {
    const fixtures = await seedFolder({
      'plants.json': [
        { id: 1, name: 'Fern' },
        { id: 2, name: 5 },
      ],
    })
    const error = await expectStartupError(garden({ fixtures }), 'state_seed_invalid')
    expect(error.message).toContain(join(fixtures, 'data', 'plants.json'))
    expect(error.message).toContain('[1].name')
  })

  it('two seed records with one key stop start-up with state_seed_invalid naming the second, rather than one silently replacing the other', async () => {
    const fixtures = await seedFolder({
      'plants.json': [
        { id: 1, name: 'Fern' },
        { id: 2, name: 'Ivy' },
        { id: 1, name: 'Other fern' },
      ],
    })
    const error = await expectStartupError(garden({ fixtures }), 'state_seed_invalid')
    expect(error.message).toContain(join(fixtures, 'data', 'plants.json'))
    expect(error.message).toContain('[2].id')
    expect(error.message).toContain('[0]')
  })

  it('seed beds may share a bedId in different gardens, and int64 keys that round alike are two keys', async () => {
    const gardens = ['11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222']
    const fixtures = await seedFolder({
      'gardens.json': gardens.map((id, n) => ({ id, name: `G${n}` })),
      'beds.json': gardens.map((gardenId) => ({ $scope: { gardenId }, bedId: 1, soil: 'clay' })),
      'plants.json': '[{"id":9223372036854775807,"name":"Max"},{"id":9223372036854775806,"name":"Max - 1"}]',
    })
    const { client } = await garden({ fixtures })
    for (const gardenId of gardens)
      expect((await client.call('GET', `/gardens/${gardenId}/beds/1`)).json).toEqual({ bedId: 1, soil: 'clay' })
    expect((await client.call('GET', '/plants')).text).toBe(
      '{"items":[{"id":9223372036854775807,"name":"Max"},{"id":9223372036854775806,"name":"Max - 1"}],"total":2}',
    )
  })

  it.each([
    ['not JSON', '[{"name":'],
    ['not an array', { name: 'Fern' }],
    ['missing a required field', [{ tag: 'shade' }]],
  ])('a seed file %s stops start-up with state_seed_invalid naming the file', async (_what, content) => {
    const fixtures = await seedFolder({ 'gardens.json': content })
    const error = await expectStartupError(garden({ fixtures }), 'state_seed_invalid')
    expect(error.message).toContain(join(fixtures, 'data', 'gardens.json'))
  })

  it('a seed file naming no resource stops start-up with state_seed_unknown_resource naming the file and the resources', async () => {
    const fixtures = await seedFolder({ 'trees.json': [] })
    const error = await expectStartupError(garden({ fixtures }), 'state_seed_unknown_resource')
    expect(error.message).toContain(join(fixtures, 'data', 'trees.json'))
    expect(error.message).toContain('plants, gardens, beds, packets')
  })

  it('without stateful the seed folder is not read', async () => {
    const fixtures = await seedFolder({ 'trees.json': [], 'plants.json': [{ name: 5 }] })
    const app = await createApp({ spec: gardenSpec, fixtures })
    expect((await app.request('/status')).status).toBe(200)
  })
})

describe('stateful mode on the Garden description: steering the data', () => {
  const put = (client: StatefulClient, resource: string, body: string, query = '') =>
    client.admin('PUT', `/state/${resource}${query}`, { headers: JSON_BODY, body })

  it('PUT /__mock/state/plants replaces the records, answers them as stored, and the API serves them', async () => {
    const { client } = await garden()
    await client.call('POST', '/plants', { name: 'Replaced away' })
    const answer = await put(client, 'plants', JSON.stringify([{ id: 3, name: 'Fern' }, { name: 'Ivy' }]))
    expect(answer.status).toBe(200)
    expect(answer.json).toEqual({
      resources: {
        plants: [
          { id: 3, name: 'Fern' },
          { id: 4, name: 'Ivy' },
        ],
      },
    })
    expect(names(await client.call('GET', '/plants'))).toEqual(['Fern', 'Ivy'])
    expect((await client.call('POST', '/plants', { name: 'Next' })).json.id).toBe(5)
  })

  it('PUT /__mock/state/plants refuses a record that breaks the schema with 400 naming [1].name, and changes nothing', async () => {
    const { client } = await garden()
    await client.call('POST', '/plants', { name: 'Kept' })
    expectError(
      await put(
        client,
        'plants',
        JSON.stringify([
          { id: 1, name: 'Fern' },
          { id: 2, name: 5 },
        ]),
      ),
      400,
      '[1].name',
    )
    expectError(await put(client, 'plants', 'not json'), 400, 'not JSON')
    expectError(await put(client, 'plants', '{"id":1,"name":"Fern"}'), 400, 'array')
    expect(await client.records('plants')).toEqual([{ id: 1, name: 'Kept' }])
  })

  it('PUT /__mock/state/plants refuses two records with one key with 400 naming the second, and changes nothing', async () => {
    const { app, client } = await garden()
    await client.call('POST', '/plants', { name: 'Kept' })
    const body = JSON.stringify([
      { id: 2, name: 'Fern' },
      { id: 2, name: 'Ivy' },
    ])
    expectError(await put(client, 'plants', body), 400, '[1].id')
    expect(() => app.mock.state.set('plants', JSON.parse(body))).toThrow(MockError)
    expect(await client.records('plants')).toEqual([{ id: 1, name: 'Kept' }])
  })

  it('POST /__mock/state/plants/reset puts that resource back to its seed, of the session asked, and leaves the others', async () => {
    const fixtures = await seedFolder({ 'plants.json': [{ id: 1, name: 'Seeded' }] })
    const { client } = await garden({ fixtures })
    await client.call('POST', '/plants', { name: 'Added' })
    await client.call('POST', '/gardens', { name: 'Kept garden' })
    await client.call('POST', '/plants', { name: 'In a' }, { 'x-mock-session': 'a' })
    const answer = await client.admin('POST', '/state/plants/reset')
    expect(answer.status).toBe(200)
    expect(answer.json).toEqual({ resources: { plants: [{ id: 1, name: 'Seeded' }] } })
    expect(names(await client.call('GET', '/plants'))).toEqual(['Seeded'])
    expect((await client.records('gardens')).map((g) => g.name)).toEqual(['Kept garden'])
    expect(names(await client.call('GET', '/plants', undefined, { 'x-mock-session': 'a' }))).toEqual(['Seeded', 'In a'])
    await client.admin('POST', '/state/plants/reset?session=a')
    expect(names(await client.call('GET', '/plants', undefined, { 'x-mock-session': 'a' }))).toEqual(['Seeded'])
    expectError(await client.admin('POST', '/state/trees/reset'), 404, '"trees"')
  })

  it('an unknown resource answers 404 naming the resources, on GET and on PUT', async () => {
    const { client } = await garden()
    expectError(await client.admin('GET', '/state?resource=trees'), 404, 'plants, gardens, beds, packets')
    expectError(await put(client, 'trees', '[]'), 404, '"trees"')
  })

  it("PUT /__mock/state for a session replaces that session's records only", async () => {
    const { client } = await garden()
    await client.call('POST', '/plants', { name: 'Shared' })
    const answer = await put(client, 'plants', '[{"id":1,"name":"Only in a"}]', '?session=a')
    expect(answer.json).toEqual({ session: 'a', resources: { plants: [{ id: 1, name: 'Only in a' }] } })
    expect(names(await client.call('GET', '/plants', undefined, { 'x-mock-session': 'a' }))).toEqual(['Only in a'])
    expect(names(await client.call('GET', '/plants'))).toEqual(['Shared'])
  })

  it('mock.state.get, set and reset read and steer the data in process, per session', async () => {
    const fixtures = await seedFolder({ 'plants.json': [{ id: 1, name: 'Seeded' }] })
    const { app, client } = await garden({ fixtures })
    const { state } = app.mock
    expect(await state.get('plants')).toEqual([{ id: 1, name: 'Seeded' }])
    expect(await state.get()).toEqual({ plants: [{ id: 1, name: 'Seeded' }], gardens: [], beds: [], packets: [] })

    await state.set('plants', [{ id: 2, name: 'Set' }, { name: 'Keyless' }])
    expect(await state.get('plants')).toEqual([
      { id: 2, name: 'Set' },
      { id: 3, name: 'Keyless' },
    ])
    expect(names(await client.call('GET', '/plants'))).toEqual(['Set', 'Keyless'])

    await state.set('plants', [{ id: 9, name: 'In a' }], { session: 'a' })
    expect(await state.get('plants', { session: 'a' })).toEqual([{ id: 9, name: 'In a' }])
    expect((await state.get(undefined, { session: 'a' })).plants).toEqual([{ id: 9, name: 'In a' }])
    expect(names(await client.call('GET', '/plants', undefined, { 'x-mock-session': 'a' }))).toEqual(['In a'])

    await state.reset({ session: 'a' })
    expect(await state.get('plants', { session: 'a' })).toEqual([{ id: 1, name: 'Seeded' }])
    expect(await state.get('plants')).toHaveLength(2)
    await state.reset()
    expect(await state.get('plants')).toEqual([{ id: 1, name: 'Seeded' }])
  })

  it('mock.state refuses bad records (400) and unknown resources (404) with a MockError, changing nothing', async () => {
    const { app } = await garden()
    const thrown = (run: () => unknown): MockError => {
      try {
        run()
      } catch (error) {
        expect(error).toBeInstanceOf(MockError)
        return error as MockError
      }
      throw new Error('did not throw')
    }
    const bad = thrown(() => app.mock.state.set('plants', [{ name: 'Fern' }, { name: 5 }]))
    expect(bad.status).toBe(400)
    expect(bad.message).toContain('[1].name')
    expect(thrown(() => app.mock.state.get('trees')).status).toBe(404)
    expect(thrown(() => app.mock.state.set('trees', [])).status).toBe(404)
    // The shared store answers with a promise (`mock.state`), which await reads as the memory store's value.
    expect(await app.mock.state.get('plants')).toEqual([])
  })

  it('POST /__mock/reset without a session brings every session and the data without one back to the seed', async () => {
    const { app, client } = await garden()
    await client.call('POST', '/plants', { name: 'Gone' })
    await client.call('POST', '/plants', { name: 'Gone too' }, { 'x-mock-session': 'a' })
    await client.admin('POST', '/reset')
    expect(await client.records('plants')).toEqual([])
    expect(await client.records('plants', 'a')).toEqual([])
    expect((await client.admin('GET', '/health')).json.state).toEqual({ sessions: 0, records: 0 })
    expect(app.mock.requests()).toEqual([])
  })
})

describe('stateful mode on the Garden description: operations that fit no resource', () => {
  it('POST /plants/{id}/water and GET /status answer as without state, and change nothing', async () => {
    const { app, client } = await garden()
    await client.call('POST', '/plants', { name: 'Fern' })
    const watered = await client.call('POST', '/plants/1/water')
    expect(watered.status).toBe(204)
    expect((await client.call('POST', '/plants/99/water')).status).toBe(204)
    expect((await client.call('GET', '/status')).json).toEqual({ ok: true })
    expect(await client.records('plants')).toEqual([{ id: 1, name: 'Fern' }])
    expect(app.mock.requests().map((entry) => entry.data)).toEqual([
      'created plants/1',
      undefined,
      undefined,
      undefined,
    ])
  })

  it('/legacy-plants, opted out by x-mock-resource: false, answers as without state and stores nothing', async () => {
    const { client } = await garden()
    const stateless = statefulClient(sendInProcess(await createApp({ spec: gardenSpec })), oracle)
    const body = { id: 1, name: 'Old fern' }
    const expected = await stateless.call('POST', '/legacy-plants', body)
    for (let n = 0; n < 2; n++) {
      const answer = await client.call('POST', '/legacy-plants', body)
      expect(answer.status).toBe(expected.status)
      expect(answer.json).toEqual(expected.json)
    }
    expect((await client.call('GET', '/legacy-plants')).json).toEqual(
      (await stateless.call('GET', '/legacy-plants')).json,
    )
    expect((await client.admin('GET', '/state')).json).toEqual({
      resources: { plants: [], gardens: [], beds: [], packets: [] },
    })
  })
})
