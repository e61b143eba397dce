/** OpenAPI 3.2 (#31 §1) over a socket: QUERY and LINK as fetch sends them, through Node's HTTP parser. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type MockServer, startMockServer } from '../../src/index.js'
import { silentLogger } from '../../src/common/log.js'
import { LIBRARY_SPEC, libraryCases } from '../support/openapi-3-2-cases.js'

let server: MockServer
beforeAll(async () => {
  server = await startMockServer({ spec: LIBRARY_SPEC, port: 0, logger: silentLogger })
})
afterAll(() => server.close())

describe('an OpenAPI 3.2 description over a socket (#31 §1)', () => {
  it.each(libraryCases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const response = await fetch(server.url + c.path, {
      method: c.method,
      headers: c.headers,
      body: c.body,
      signal: AbortSignal.timeout(10_000),
    })
    const text = await response.text()
    expect(response.status, text).toBe(c.status)
    if (c.text !== undefined) expect(text).toBe(c.text)
    for (const [name, value] of Object.entries(c.answerHeaders ?? {})) expect(response.headers.get(name)).toBe(value)
    for (const words of c.mentions ?? []) expect(text).toContain(words)
  })

  it('refuses a bad querystring as it refuses a bad query parameter: the same status and Error shape', async () => {
    const get = (path: string) => fetch(server.url + path, { signal: AbortSignal.timeout(10_000) })
    const [query, querystring] = [await get('/loans?limit=50'), await get('/catalogue?limit=50')]
    expect(querystring.status).toBe(query.status)
    const [a, b] = [await query.json(), await querystring.json()] as Array<Record<string, unknown>>
    expect(Object.keys(b!).sort()).toEqual(Object.keys(a!).sort())
    expect(JSON.stringify(b)).toContain('querystring.filter.limit')
  })

  it('journals a QUERY with its operation', async () => {
    await fetch(`${server.url}/books`, {
      method: 'QUERY',
      headers: { 'content-type': 'application/json' },
      body: '{"title":"Emma"}',
      signal: AbortSignal.timeout(10_000),
    })
    const listed = (await (await fetch(`${server.url}/__mock/requests?operation=searchBooks`)).json()) as {
      requests: Array<{ method: string; body: string }>
    }
    expect(listed.requests.at(-1)).toMatchObject({ method: 'QUERY', body: '{"title":"Emma"}' })
  })
})
