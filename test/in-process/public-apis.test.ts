/**
 * Two well-known public API descriptions (#7 §8), rewritten from their facts under test/descriptions/public/:
 * every operation is called with a valid request, and every response is checked by the Prism oracle.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Hono } from 'hono'
import { beforeAll, describe, expect, it } from 'vitest'
import { parse as parseYaml } from 'yaml'
import { createApp } from '../../src/index.js'
import { type Oracle, createOracle } from '../support/oracle.js'
import { silentLogger } from '../../src/common/log.js'

interface Call {
  method: string
  path: string
  headers?: Record<string, string>
  body?: string
  status: number
}

const specOf = (name: string) => fileURLToPath(new URL(`../descriptions/public/${name}`, import.meta.url))
const json = { 'content-type': 'application/json' }
const form = { 'content-type': 'application/x-www-form-urlencoded' }
const oauth = { authorization: 'Bearer t' }
const apiKey = { api_key: 'k' }
const pet = JSON.stringify({ id: 10, name: 'doggie', photoUrls: ['https://example.com/d.png'], status: 'available' })
const user = JSON.stringify({ id: 10, username: 'theUser', email: 'john@email.com' })

/** One valid call per operation of petstore3.yaml. */
const petstoreCalls: Record<string, Call> = {
  updatePet: { method: 'PUT', path: '/pet', headers: { ...oauth, ...json }, body: pet, status: 200 },
  addPet: { method: 'POST', path: '/pet', headers: { ...oauth, ...json }, body: pet, status: 200 },
  'addPet (form body)': {
    method: 'POST',
    path: '/pet',
    headers: { ...oauth, ...form },
    body: 'name=doggie&photoUrls=a&photoUrls=b&id=3',
    status: 200,
  },
  findPetsByStatus: { method: 'GET', path: '/pet/findByStatus?status=sold', headers: oauth, status: 200 },
  findPetsByTags: { method: 'GET', path: '/pet/findByTags?tags=a&tags=b', headers: oauth, status: 200 },
  getPetById: { method: 'GET', path: '/pet/10', headers: apiKey, status: 200 },
  'getPetById (XML)': {
    method: 'GET',
    path: '/pet/10',
    headers: { ...apiKey, accept: 'application/xml' },
    status: 200,
  },
  'getPetById (declared 404)': {
    method: 'GET',
    path: '/pet/10',
    headers: { ...apiKey, prefer: 'code=404' },
    status: 404,
  },
  updatePetWithForm: { method: 'POST', path: '/pet/10?name=rex&status=sold', headers: oauth, status: 200 },
  deletePet: { method: 'DELETE', path: '/pet/10', headers: { ...oauth, api_key: 'k' }, status: 200 },
  uploadFile: {
    method: 'POST',
    path: '/pet/10/uploadImage?additionalMetadata=x',
    headers: { ...oauth, 'content-type': 'application/octet-stream' },
    body: '\u0089PNG',
    status: 200,
  },
  getInventory: { method: 'GET', path: '/store/inventory', headers: apiKey, status: 200 },
  placeOrder: {
    method: 'POST',
    path: '/store/order',
    headers: json,
    body: JSON.stringify({ id: 1, petId: 10, quantity: 2, status: 'placed' }),
    status: 200,
  },
  getOrderById: { method: 'GET', path: '/store/order/1', status: 200 },
  deleteOrder: { method: 'DELETE', path: '/store/order/1', status: 200 },
  createUser: { method: 'POST', path: '/user', headers: json, body: user, status: 200 },
  createUsersWithListInput: {
    method: 'POST',
    path: '/user/createWithList',
    headers: json,
    body: `[${user}]`,
    status: 200,
  },
  loginUser: { method: 'GET', path: '/user/login?username=theUser&password=12345', status: 200 },
  logoutUser: { method: 'GET', path: '/user/logout', status: 200 },
  getUserByName: { method: 'GET', path: '/user/user1', status: 200 },
  updateUser: { method: 'PUT', path: '/user/user1', headers: json, body: user, status: 200 },
  deleteUser: { method: 'DELETE', path: '/user/user1', status: 200 },
}

const bearer = { authorization: 'Bearer t' }
/** One valid call per operation of todos.yaml. */
const todoCalls: Record<string, Call> = {
  listTodos: { method: 'GET', path: '/todos?completed=false&limit=5', headers: bearer, status: 200 },
  createTodo: {
    method: 'POST',
    path: '/todos',
    headers: { ...bearer, ...json },
    body: '{"title":"Water the fern"}',
    status: 201,
  },
  getTodo: { method: 'GET', path: '/todos/1', headers: bearer, status: 200 },
  replaceTodo: {
    method: 'PUT',
    path: '/todos/1',
    headers: { ...bearer, ...json },
    body: '{"title":"Repot","completed":true}',
    status: 200,
  },
  updateTodo: {
    method: 'PATCH',
    path: '/todos/1',
    headers: { ...bearer, 'content-type': 'application/merge-patch+json' },
    body: '{"completed":true}',
    status: 200,
  },
  deleteTodo: { method: 'DELETE', path: '/todos/1', headers: bearer, status: 204 },
}

describe.each([
  ['petstore3.yaml', petstoreCalls],
  ['todos.yaml', todoCalls],
] as const)('the public description %s (#7)', (file, calls) => {
  let app: Hono<any>
  let oracle: Oracle
  beforeAll(async () => {
    app = await createApp({ spec: specOf(file), seed: 3, logger: silentLogger })
    oracle = await createOracle(specOf(file), { builtInError: true })
  })

  async function send(call: Call) {
    const res = await app.request(call.path, { method: call.method, headers: call.headers, body: call.body })
    const text = await res.text()
    return {
      res,
      text,
      problems: oracle.problems({
        method: call.method,
        path: call.path,
        status: res.status,
        contentType: res.headers.get('content-type'),
        text,
      }),
    }
  }

  it('has a call for every operation it declares', () => {
    const document = parseYaml(readFileSync(specOf(file), 'utf8'))
    const operationIds = Object.values(document.paths).flatMap((item: any) =>
      Object.values(item)
        .map((op: any) => op?.operationId)
        .filter(Boolean),
    )
    const called = new Set(Object.keys(calls).map((name) => name.split(' ')[0]))
    expect(operationIds.filter((id) => !called.has(id))).toEqual([])
  })

  it.each(Object.entries(calls))('%s answers its success status with a conforming body', async (_name, call) => {
    const { res, text, problems } = await send(call)
    expect(res.status, text).toBe(call.status)
    expect(problems).toEqual([])
  })

  it.each(Object.entries(calls).filter(([, c]) => c.method === 'GET'))(
    'HEAD %s answers like GET without a body',
    async (_name, call) => {
      const { res, text } = await send({ ...call, method: 'HEAD' })
      expect(res.status).toBe(call.status)
      expect(text).toBe('')
    },
  )
})

describe('petstore3.yaml in XML (#7)', () => {
  it('serves a Pet as XML named by its xml.name', async () => {
    const app = await createApp({ spec: specOf('petstore3.yaml'), seed: 3, logger: silentLogger })
    const res = await app.request('/pet/10', { headers: { ...apiKey, accept: 'application/xml' } })
    expect(res.headers.get('content-type')).toBe('application/xml')
    expect(await res.text()).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?><pet><id>-?\d+<\/id><name>/)
  })

  it('answers a violation of a description without error schemas with a bodiless 400 and X-Mock-Error', async () => {
    const app = await createApp({ spec: specOf('petstore3.yaml'), seed: 3, logger: silentLogger })
    const res = await app.request('/pet/abc', { headers: apiKey })
    expect(res.status).toBe(400)
    expect(await res.text()).toBe('')
    expect(res.headers.get('x-mock-error')).toContain('path.petId must be an integer')
  })
})
