/**
 * Stateful mode (#15) over a real socket (port 0, loopback): the walk-through of docs/stateful-mode.md with fetch,
 * two sessions in parallel over connections of their own, and the state file across a restart of
 * the server (and refused, untouched, when it is not the mock's). Admin answers are checked against
 * `admin-openapi.yaml` (test/support/stateful.ts).
 */
import { Agent, request as httpRequest } from 'node:http'
import { readFile, readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type AppOptions, type MockServer, startMockServer } from '../../src/index.js'
import { silentLogger } from '../../src/common/log.js'
import { type AdminOracle, createAdminOracle } from '../support/admin-oracle.js'
import { within } from '../support/processes.js'
import { sleep } from '../support/raw-socket.js'
import { expectStartupError } from '../support/startup-error.js'
import {
  type Send,
  type StatefulClient,
  auth,
  expectError,
  gardenSpec,
  sendOverSocket,
  statefulClient,
} from '../support/stateful.js'
import { removeTempDirs, tempDir } from '../support/temp-dirs.js'

let oracle: AdminOracle
const servers: MockServer[] = []
const agents: Agent[] = []

beforeAll(async () => {
  oracle = await createAdminOracle()
})

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
  for (const agent of agents.splice(0)) agent.destroy()
  await removeTempDirs()
})

async function serve(options: AppOptions = {}): Promise<{ server: MockServer; client: StatefulClient }> {
  const server = await startMockServer({ port: 0, logger: silentLogger, spec: gardenSpec, stateful: true, ...options })
  servers.push(server)
  return { server, client: statefulClient(sendOverSocket(server.url), oracle) }
}

/** Stops a server this file started (and forgets it, so afterEach does not close it twice). */
async function stop(server: MockServer): Promise<void> {
  servers.splice(servers.indexOf(server), 1)
  await server.close()
}

/** Requests over one kept-alive connection of their own (node:http, one socket); `ports` collects its local port. */
function sendOnOwnConnection(url: string, ports: Set<number>): Send {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  agents.push(agent)
  return (method, path, init = {}) =>
    new Promise((resolve, reject) => {
      const req = httpRequest(url + path, { method, agent, headers: init.headers }, (res) => {
        ports.add(res.socket.localPort!)
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () => {
          const body = Buffer.concat(chunks)
          const headers = new Headers()
          for (const [name, value] of Object.entries(res.headers))
            if (typeof value === 'string') headers.set(name, value)
          resolve(new Response(body.length ? body : null, { status: res.statusCode!, headers }))
        })
        res.on('error', reject)
      })
      req.on('error', reject)
      req.end(init.body)
    })
}

const namesOf = (items: Array<{ name: string }>) => items.map((item) => item.name)

describe('stateful mode over a socket', () => {
  it('the walk-through of docs/stateful-mode.md: create, refuse a taken id, list, filter, page, read, patch, delete, inspect, reset', async () => {
    const { client } = await serve()
    const fern = await client.call('POST', '/plants', { name: 'Fern', tag: 'fern' })
    expect(fern.status).toBe(201)
    expect(fern.text).toBe('{"id":1,"name":"Fern","tag":"fern"}')
    expect((await client.call('POST', '/plants', { id: 7, name: 'Ivy', tag: 'climber' })).json).toEqual({
      id: 7,
      name: 'Ivy',
      tag: 'climber',
    })
    expectError(
      await client.call('POST', '/plants', { id: 7, name: 'Ivy again' }),
      400,
      'A plant with id 7 already exists.',
    )
    expect((await client.call('GET', '/plants?tag=climber')).json).toEqual({
      items: [{ id: 7, name: 'Ivy', tag: 'climber' }],
      total: 1,
    })
    expect((await client.call('GET', '/plants?limit=1')).json).toEqual({
      items: [{ id: 1, name: 'Fern', tag: 'fern' }],
      total: 2,
    })
    expect((await client.call('GET', '/plants/7')).json).toEqual({ id: 7, name: 'Ivy', tag: 'climber' })
    const patched = await client.call(
      'PATCH',
      '/plants/7',
      { tag: 'vine' },
      { 'content-type': 'application/merge-patch+json' },
    )
    expect(patched.json).toEqual({ id: 7, name: 'Ivy', tag: 'vine' })
    const deleted = await client.call('DELETE', '/plants/7')
    expect(deleted.status).toBe(204)
    expect(deleted.text).toBe('')
    expectError(await client.call('GET', '/plants/7'), 404, 'There is no plant with id 7.')
    expect(await client.records('plants')).toEqual([{ id: 1, name: 'Fern', tag: 'fern' }])
    expect((await client.admin('POST', '/reset')).status).toBe(200)
    expect((await client.admin('GET', '/state')).json).toEqual({
      resources: { plants: [], gardens: [], beds: [], packets: [] },
    })
  })

  it('the embedded Plant Store, stateful: a taken id answers 400 naming it, and the state lists the records with their ids', async () => {
    const server = await startMockServer({ port: 0, logger: silentLogger, stateful: true })
    servers.push(server)
    const client = statefulClient(sendOverSocket(server.url), oracle)
    expect((await client.call('POST', '/plants', { id: 1, name: 'Fern' })).json).toEqual({ name: 'Fern' })
    expectError(await client.call('POST', '/plants', { id: 1, name: 'Fern' }), 400, 'A plant with id 1 already exists.')
    expect((await client.call('POST', '/plants', { id: 2, name: 'Aloe' })).status).toBe(200)
    expect(await client.records('plants')).toEqual([
      { id: 1, name: 'Fern' },
      { id: 2, name: 'Aloe' },
    ])
  })

  it("two sessions writing in parallel, each over its own connection, never see each other's plants", async () => {
    const { server } = await serve()
    const ports = { a: new Set<number>(), b: new Set<number>() }
    const clients = {
      a: statefulClient(sendOnOwnConnection(server.url, ports.a), oracle),
      b: statefulClient(sendOnOwnConnection(server.url, ports.b), oracle),
    }
    const writes = []
    for (let n = 1; n <= 10; n++)
      for (const session of ['a', 'b'] as const)
        writes.push(clients[session].call('POST', '/plants', { name: `${session}${n}` }, { 'x-mock-session': session }))
    for (const answer of await Promise.all(writes)) expect(answer.status, answer.text).toBe(201)
    for (const session of ['a', 'b'] as const) {
      const listed = await clients[session].call('GET', '/plants?limit=50', undefined, { 'x-mock-session': session })
      expect(namesOf(listed.json.items)).toEqual(Array.from({ length: 10 }, (_, i) => `${session}${i + 1}`))
      expect(listed.json.items.map((plant: { id: number }) => plant.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    }
    // One connection per session, and not the same one.
    expect(ports.a.size).toBe(1)
    expect(ports.b.size).toBe(1)
    expect([...ports.a][0]).not.toBe([...ports.b][0])
    expect(server.state.get('plants')).toEqual([])
  })
})

describe('stateful mode over a socket: the state file', () => {
  it('the records written before close() are there after a restart on the same file, sessions too', async () => {
    const dir = await tempDir('stateful-file-')
    const stateFile = join(dir, 'data.json')
    // stateFile alone turns stateful mode on.
    const first = await startMockServer({ port: 0, logger: silentLogger, spec: gardenSpec, stateFile })
    servers.push(first)
    const client = statefulClient(sendOverSocket(first.url), oracle)
    await client.call('POST', '/plants', { name: 'Fern', tag: 'shade' })
    await client.call('PUT', '/plants/9223372036854775807', { name: 'Big' })
    await client.call('POST', '/plants', { name: 'Session fern' }, { 'x-mock-session': 'w1' })
    const garden = (await client.call('POST', '/gardens', { name: 'Back yard' })).json
    await client.call('POST', `/gardens/${garden.id}/beds`, { soil: 'loam' })
    await stop(first)

    const saved = await readFile(stateFile, 'utf8')
    expect(saved).toContain('"Fern"')
    expect(saved).toContain('9223372036854775807')

    const { client: again } = await serve({ stateFile })
    const listed = await again.call('GET', '/plants')
    expect(listed.text).toBe(
      '{"items":[{"id":1,"name":"Fern","tag":"shade"},{"id":9223372036854775807,"name":"Big"}],"total":2}',
    )
    expect((await again.call('GET', '/plants', undefined, { 'x-mock-session': 'w1' })).json.items).toEqual([
      { id: 1, name: 'Session fern' },
    ])
    expect((await again.call('GET', `/gardens/${garden.id}`)).json).toEqual(garden)
    expect((await again.call('GET', `/gardens/${garden.id}/beds`)).json.data).toEqual([{ bedId: 1, soil: 'loam' }])
  })

  it('a change reaches the state file while the server runs, without a stop', async () => {
    const dir = await tempDir('stateful-file-')
    const stateFile = join(dir, 'data.json')
    const { client } = await serve({ stateFile })
    await client.call('POST', '/plants', { name: 'Written soon' })
    let text = ''
    await within(
      5000,
      'the state file to hold the plant',
      (async () => {
        while (!text.includes('Written soon')) {
          await sleep(50)
          text = await readFile(stateFile, 'utf8').catch(() => '')
        }
      })(),
    )
    expect(JSON.parse(text)).toMatchObject({ version: 1, data: { plants: [{ id: 1, name: 'Written soon' }] } })
  })

  it.each([
    ['cut off mid-document', '{"version":1,"data":{"plants":[{"name":', 'not JSON'],
    ['naming a resource the description does not imply', '{"version":1,"data":{"trees":[]}}', 'data.trees'],
    [
      'holding a record that breaks its schema',
      '{"version":1,"data":{"plants":[{"id":1,"name":5}]}}',
      'data.plants[0].name',
    ],
    ['empty', '', 'empty'],
    [
      'holding two records with one key',
      '{"version":1,"data":{"plants":[{"id":1,"name":"Fern"},{"id":1,"name":"Ivy"}]}}',
      'data.plants[1].id',
    ],
    ['of another shape', '[1,2,3]', 'holds an array'],
  ])(
    'a state file %s stops start-up with state_file_invalid and is left byte for byte as it was',
    async (_what, content, mention) => {
      const dir = await tempDir('stateful-file-')
      const stateFile = join(dir, 'data.json')
      await writeFile(stateFile, content)
      const before = await readFile(stateFile)
      const error = await expectStartupError(
        startMockServer({ port: 0, logger: silentLogger, spec: gardenSpec, stateFile }),
        'state_file_invalid',
      )
      expect(error.message).toContain(stateFile)
      expect(error.message).toContain(mention)
      expect((await readFile(stateFile)).equals(before)).toBe(true)
      expect(await readdir(dir)).toEqual(['data.json'])
    },
  )

  it('reset, PUT /__mock/state and mock.state.set reach the state file too', async () => {
    const dir = await tempDir('stateful-file-')
    const stateFile = join(dir, 'data.json')
    const { server, client } = await serve({ stateFile })
    await client.call('POST', '/plants', { name: 'Reset away' })
    await client.call('POST', '/plants', { name: 'Session plant' }, { 'x-mock-session': 'w1' })
    expect((await client.admin('POST', '/reset')).status).toBe(200)
    const put = await client.admin('PUT', '/state/packets', {
      headers: { 'content-type': 'application/json' },
      body: '[{"sku":"TOM-1","variety":"Moneymaker"}]',
    })
    expect(put.status).toBe(200)
    server.state.set('plants', [{ id: 3, name: 'Set in process' }])
    await stop(server)
    const saved = JSON.parse(await readFile(stateFile, 'utf8'))
    expect(saved).toEqual({
      version: 1,
      data: {
        plants: [{ id: 3, name: 'Set in process' }],
        gardens: [],
        beds: [],
        packets: [{ sku: 'TOM-1', variety: 'Moneymaker' }],
      },
      sessions: {},
    })
  })

  it('a request refused by security or validation does not reach the state file', async () => {
    const dir = await tempDir('stateful-file-')
    const stateFile = join(dir, 'data.json')
    const { server, client } = await serve({ stateFile })
    await client.call('POST', '/plants', { name: 'Kept' })
    expect((await client.call('POST', '/plants', { name: 5 })).status).toBe(400)
    const unauthorised = await fetch(`${server.url}/plants`, {
      method: 'POST',
      headers: { 'content-type': auth['content-type'] },
      body: '{"name":"No token"}',
    })
    expect(unauthorised.status).toBe(401)
    await stop(server)
    const saved = JSON.parse(await readFile(stateFile, 'utf8'))
    expect(saved.data.plants).toEqual([{ id: 1, name: 'Kept' }])
  })
})
