/**
 * Every response the case table draws from the mock, in process and over a socket, passes an
 * independent oracle (Prism's validator, `test/support/oracle.ts`) for openapi.yaml.
 */
import type { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type MockServer, createApp, startMockServer } from '../../src/index.js'
import {
  type CaseRequest,
  type Received,
  type RequestCase,
  cases,
  optionsKey,
  sendInProcess,
  sendOverSocket,
  specPath,
} from '../support/cases.js'
import { type Exchange, type Oracle, createOracle } from '../support/oracle.js'
import { silentLogger } from '../../src/common/log.js'

let oracle: Oracle
const apps = new Map<string, Promise<Hono<any>>>()
const servers = new Map<string, Promise<MockServer>>()

beforeAll(async () => {
  oracle = await createOracle(specPath)
})

afterAll(async () => {
  await Promise.all([...servers.values()].map(async (server) => (await server).close()))
})

function appFor(options: RequestCase['options'] = {}): Promise<Hono<any>> {
  const key = optionsKey(options)
  if (!apps.has(key)) apps.set(key, createApp(options))
  return apps.get(key)!
}

function serverFor(options: RequestCase['options'] = {}): Promise<MockServer> {
  const key = optionsKey(options)
  if (!servers.has(key)) servers.set(key, startMockServer({ port: 0, logger: silentLogger, ...options }))
  return servers.get(key)!
}

function exchangeOf(request: CaseRequest, received: Received): Exchange {
  return {
    method: request.method ?? 'POST',
    path: request.path ?? '/plants',
    status: received.status,
    contentType: received.header('content-type'),
    text: received.text,
  }
}

const table = cases.map((c) => [c.name, c] as const)

describe('every response conforms to openapi.yaml', () => {
  it.each(table)('in process: %s', async (_name, testCase) => {
    const received = await sendInProcess(await appFor(testCase.options), testCase.request)
    expect(received.status).toBeLessThan(500)
    expect(oracle.problems(exchangeOf(testCase.request, received))).toEqual([])
  })

  it.each(table)('over a socket: %s', async (_name, testCase) => {
    const received = await sendOverSocket((await serverFor(testCase.options)).url, testCase.request)
    expect(received.status).toBeLessThan(500)
    expect(oracle.problems(exchangeOf(testCase.request, received))).toEqual([])
  })

  const generate: CaseRequest = {
    method: 'POST',
    path: '/plants',
    headers: { authorization: 'Bearer t', 'content-type': 'application/json', prefer: 'dynamic=true' },
    body: '{"id":1,"name":"Fern"}',
  }

  it.each([1, 2, 3, 42, 1000, 2 ** 31 - 1])('plants generated with seed %i conform', async (seed) => {
    const app = await createApp({ seed })
    for (let i = 0; i < 10; i++) {
      const received = await sendInProcess(app, generate)
      expect(received.status).toBe(200)
      expect(oracle.problems(exchangeOf(generate, received))).toEqual([])
    }
  })

  it('400 bodies generated with Prefer: code=400, dynamic=true conform', async () => {
    const app = await createApp({ seed: 5 })
    const request = { ...generate, headers: { ...generate.headers, prefer: 'code=400, dynamic=true' } }
    for (let i = 0; i < 10; i++) {
      const received = await sendInProcess(app, request)
      expect(received.status).toBe(400)
      expect(oracle.problems(exchangeOf(request, received))).toEqual([])
    }
  })
})

describe('the oracle', () => {
  const ok = { method: 'POST', path: '/plants', contentType: 'application/json' }

  it('accepts the 200 fixture', () => {
    expect(oracle.problems({ ...ok, status: 200, text: '{"name":"Monstera deliciosa","tag":"houseplant"}' })).toEqual(
      [],
    )
  })

  it('flags a Plant whose name is not a string', () => {
    expect(oracle.problems({ ...ok, status: 200, text: '{"name":5}' })).not.toEqual([])
  })

  it('flags a Plant without a name', () => {
    expect(oracle.problems({ ...ok, status: 200, text: '{"tag":"x"}' })).not.toEqual([])
  })

  it('flags a declared 400 whose error is beyond int32', () => {
    expect(oracle.problems({ ...ok, status: 400, text: `{"error":${2 ** 31},"message":"x"}` })).not.toEqual([])
  })

  it('flags an undeclared 404 body without a message', () => {
    expect(oracle.problems({ ...ok, path: '/trees', status: 404, text: '{"error":404}' })).not.toEqual([])
  })

  it('flags an undeclared 401 body with a message that is not a string', () => {
    expect(oracle.problems({ ...ok, status: 401, text: '{"error":401,"message":1}' })).not.toEqual([])
  })

  it('flags a body sent as JSON that does not parse', () => {
    expect(oracle.problems({ ...ok, status: 200, text: '{"name":' })).not.toEqual([])
  })

  it('flags a declared response sent with another media type', () => {
    expect(
      oracle.problems({ ...ok, contentType: 'text/plain', status: 400, text: '{"error":400,"message":"x"}' }),
    ).not.toEqual([])
  })
})
