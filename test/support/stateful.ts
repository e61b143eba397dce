/**
 * Clients for the stateful mode tests (#15), whatever the transport: API calls carry a token and a
 * JSON body; every admin call (`/__mock/*`) is checked against `admin-openapi.yaml` by the admin
 * oracle before the test reads it.
 */
import { fileURLToPath } from 'node:url'
import { expect } from 'vitest'
import type { AdminOracle } from './admin-oracle.js'

/** The Garden description: plants, gardens, nested beds, seed packets (`test/descriptions/stateful/garden.yaml`). */
export const gardenSpec = fileURLToPath(new URL('../descriptions/stateful/garden.yaml', import.meta.url))

export const auth = { authorization: 'Bearer t', 'content-type': 'application/json' }

export interface SendInit {
  headers?: Record<string, string>
  body?: string
}

/** One request to a running mock; `path` may carry a query string. */
export type Send = (method: string, path: string, init?: SendInit) => Promise<Response>

export interface Answer {
  status: number
  headers: Headers
  text: string
  /** The parsed body when it is JSON, else undefined. */
  json: any
}

/** Requests through `app.request()`. */
export function sendInProcess(app: {
  request: (path: string, init: RequestInit) => Response | Promise<Response>
}): Send {
  return async (method, path, init = {}) => app.request(path, { method, headers: init.headers, body: init.body })
}

/** Requests over a socket with fetch (loopback only: `url` is the mock's). */
export function sendOverSocket(url: string): Send {
  return (method, path, init = {}) => fetch(url + path, { method, headers: init.headers, body: init.body })
}

export async function answerOf(response: Response): Promise<Answer> {
  const text = await response.text()
  const json = text && /json/.test(response.headers.get('content-type') ?? '') ? JSON.parse(text) : undefined
  return { status: response.status, headers: response.headers, text, json }
}

export interface StatefulClient {
  /** An API call with a token; an object body is sent as JSON, a string as it is. */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>
  /** An admin call (`path` under `/__mock`), its answer checked against admin-openapi.yaml. */
  admin(method: string, path: string, init?: SendInit): Promise<Answer>
  /** The records of one resource (GET /__mock/state?resource=), of the data without a session or of one. */
  records(resource: string, session?: string): Promise<Array<Record<string, unknown>>>
}

export function statefulClient(send: Send, oracle: AdminOracle): StatefulClient {
  const admin = async (method: string, path: string, init: SendInit = {}) => {
    const answer = await answerOf(await send(method, `/__mock${path}`, init))
    const exchange = { method, path: `/__mock${path}`, ...answer }
    expect(
      oracle.problems(exchange),
      `${method} /__mock${path} → ${answer.status} ${answer.text.slice(0, 200)}`,
    ).toEqual([])
    return answer
  }
  return {
    call: async (method, path, body, headers = {}) =>
      answerOf(
        await send(method, path, {
          headers: { ...auth, ...headers },
          body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
        }),
      ),
    admin,
    records: async (resource, session) => {
      const query = `?resource=${resource}${session === undefined ? '' : `&session=${encodeURIComponent(session)}`}`
      const answer = await admin('GET', `/state${query}`)
      expect(answer.status, answer.text).toBe(200)
      return answer.json.resources[resource]
    },
  }
}

/** `{error, message}` with the status repeated and a message holding every fragment. */
export function expectError(answer: Answer, status: number, ...fragments: string[]): void {
  expect(answer.status, answer.text).toBe(status)
  expect(Object.keys(answer.json ?? {}).sort(), answer.text).toEqual(['error', 'message'])
  expect(answer.json.error).toBe(status)
  for (const fragment of fragments) expect(answer.json.message).toContain(fragment)
}
