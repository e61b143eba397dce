/**
 * Runtime stubs (#16) over a real socket: a mock on port 0 steered with fetch through
 * `/__mock/stubs`, as a test in another process would. Every admin answer is checked against
 * `admin-openapi.yaml`; the cases themselves are in `test/in-process/stubs.test.ts`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type MockServer, startMockServer } from '../../src/index.js'
import { silentLogger } from '../../src/common/log.js'
import { type AdminOracle, createAdminOracle } from '../support/admin-oracle.js'
import { fixtures } from '../support/cases.js'

const TOKEN = 'stub-token'
const ROSE = { id: 3, name: 'Rose' }
const SESSIONS = ['worker-1', 'worker-2']

let oracle: AdminOracle
const servers: MockServer[] = []

beforeAll(async () => {
  oracle = await createAdminOracle()
}, 60_000)

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()))
})

async function start(): Promise<MockServer> {
  const server = await startMockServer({ port: 0, logger: silentLogger, tokens: [TOKEN] })
  servers.push(server)
  return server
}

/** An admin call over the socket; its answer must conform to admin-openapi.yaml. */
async function admin(server: MockServer, method: string, path: string, definition?: unknown) {
  const response = await fetch(`${server.url}/__mock${path}`, {
    method,
    headers: definition === undefined ? {} : { 'content-type': 'application/json' },
    body: definition === undefined ? undefined : JSON.stringify(definition),
  })
  const text = await response.text()
  const exchange = { method, path: `/__mock${path}`, status: response.status, headers: response.headers, text }
  expect(oracle.problems(exchange), `${method} /__mock${path} → ${response.status} ${text}`).toEqual([])
  return { status: response.status, json: text ? JSON.parse(text) : undefined }
}

async function addPlant(server: MockServer, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(ROSE),
  })
  return { status: response.status, json: await response.json() }
}

describe('runtime stubs over a socket', () => {
  it('a stub is created with POST, answers, is listed with its hits, and is gone once deleted', async () => {
    const server = await start()
    const definition = {
      operation: 'addPlant',
      when: { body: { '$.name': 'Rose' } },
      status: 400,
      example: 'duplicate-id',
    }
    const created = await admin(server, 'POST', '/stubs', definition)
    expect(created.status).toBe(201)
    expect(created.json).toEqual({ ...definition, id: 1, priority: 5, hits: 0 })
    expect(await addPlant(server)).toEqual({ status: 400, json: fixtures.duplicateId })
    const listed = await admin(server, 'GET', '/stubs')
    expect(listed.json.stubs).toEqual([{ ...definition, id: 1, priority: 5, hits: 1 }])
    expect((await admin(server, 'DELETE', '/stubs/1')).status).toBe(204)
    expect((await admin(server, 'GET', '/stubs')).json).toEqual({ stubs: [] })
    expect(await addPlant(server)).toEqual({ status: 200, json: { name: 'Rose' } })
  })

  it("two sessions in parallel each get their own times: 1 stub's answer, once", async () => {
    const server = await start()
    for (const session of SESSIONS)
      await admin(server, 'POST', '/stubs', { operation: 'addPlant', session, times: 1, body: { name: session } })
    const sendBoth = () => Promise.all(SESSIONS.map((session) => addPlant(server, { 'x-mock-session': session })))
    expect((await sendBoth()).map((answer) => answer.json)).toEqual([{ name: 'worker-1' }, { name: 'worker-2' }])
    expect((await sendBoth()).map((answer) => answer.json)).toEqual([{ name: 'Rose' }, { name: 'Rose' }])
    expect(server.requests({ answeredBy: 'stub 1' }).map((entry) => entry.session)).toEqual(['worker-1'])
    expect(server.requests({ answeredBy: 'stub 2' }).map((entry) => entry.session)).toEqual(['worker-2'])
  })
})
