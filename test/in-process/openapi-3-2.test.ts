/** OpenAPI 3.2 (#31 §1) through app.request(): loaded, its new methods routed, its examples read, what it does not act on named. */
import { describe, expect, it } from 'vitest'
import { type MockApp, createApp } from '../../src/index.js'
import { loadSpec } from '../../src/openapi/load-spec.js'
import { describeOperations } from '../../src/openapi/operations.js'
import { nodeFiles } from '../../src/node/node-files.js'
import { LIBRARY_SPEC, libraryCases } from '../support/openapi-3-2-cases.js'

let app: MockApp
const warnings: string[] = []
const logger = { info: () => {}, warn: (line: string) => warnings.push(line), error: () => {} }

describe('an OpenAPI 3.2 description (#31 §1)', () => {
  it('loads, naming once what it accepts and does not act on', async () => {
    app = await createApp({ spec: LIBRARY_SPEC, logger })
    const named = warnings.filter((line) => line.includes('OpenAPI 3.2'))
    expect(named).toHaveLength(1)
    // Read into the media type, not yet acted on: named.
    expect(named[0]).toContain('"prefixEncoding" and "itemEncoding"')
    // Acted on: not named.
    expect(named[0]).not.toMatch(/\$self|querystring|mediaTypes|\$ref/)
    expect(app.mock.coverage().operations.map((o) => `${o.method} ${o.path}`)).toEqual([
      'QUERY /books',
      'GET /books/{id}',
      'LINK /books/{id}',
      'GET /catalogue',
      'GET /loans',
      'GET /loans/lookup',
      'POST /shelves',
      'POST /returns',
    ])
  })

  it.each(libraryCases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    app ??= await createApp({ spec: LIBRARY_SPEC, logger })
    const response = await app.request(c.path, { method: c.method, headers: c.headers, body: c.body })
    const text = await response.text()
    expect(response.status, text).toBe(c.status)
    if (c.text !== undefined) expect(text).toBe(c.text)
    for (const [name, value] of Object.entries(c.answerHeaders ?? {})) expect(response.headers.get(name)).toBe(value)
    for (const words of c.mentions ?? []) expect(text).toContain(words)
  })

  it('refuses a bad querystring as it refuses a bad query parameter: the same status and Error shape', async () => {
    app ??= await createApp({ spec: LIBRARY_SPEC, logger })
    const query = await app.request('/loans?limit=50')
    const querystring = await app.request('/catalogue?limit=50')
    expect(querystring.status).toBe(query.status)
    expect(querystring.headers.get('content-type')).toBe(query.headers.get('content-type'))
    const [a, b] = [await query.json(), await querystring.json()] as Array<Record<string, unknown>>
    expect(Object.keys(b!).sort()).toEqual(Object.keys(a!).sort())
    expect(JSON.stringify(a)).toContain('query.limit')
    expect(JSON.stringify(b)).toContain('querystring.filter.limit')
  })

  it('exposes prefixEncoding and itemEncoding on the described media type, a $ref followed', async () => {
    const spec = await loadSpec(LIBRARY_SPEC, { files: nodeFiles })
    const returns = describeOperations(spec).find((o) => o.id === 'returnBooks')!
    const [parts] = returns.requestBody!.content
    expect(parts).toMatchObject({
      mediaType: 'multipart/mixed',
      schemaPointer: '/components/mediaTypes/Returns/schema',
      prefixEncoding: [{ contentType: 'application/json' }],
      itemEncoding: { contentType: 'text/plain' },
    })
    const shelf = describeOperations(spec).find((o) => o.id === 'getCatalogue')!
    expect(shelf.parameters[0]).toMatchObject({
      in: 'querystring',
      name: 'filter',
      mediaType: 'application/x-www-form-urlencoded',
    })
  })

  it('still refuses a version it does not know, naming the ones it reads', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const path = join(mkdtempSync(join(tmpdir(), 'oas-4-')), 'api.yaml')
    writeFileSync(path, 'openapi: 4.0.0\ninfo: { title: x, version: "1" }\npaths: {}\n')
    await expect(createApp({ spec: path, logger })).rejects.toThrow('use 3.0.x, 3.1.x or 3.2.x')
  })
})
