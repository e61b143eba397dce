/** OpenAPI 3.2 (#31 §1) through app.request(): loaded, its new methods routed, its examples read, what it does not act on named. */
import { describe, expect, it } from 'vitest'
import { type MockApp, createApp } from '../../src/index.js'
import { LIBRARY_SPEC, libraryCases } from '../support/openapi-3-2-cases.js'

let app: MockApp
const warnings: string[] = []
const logger = { info: () => {}, warn: (line: string) => warnings.push(line), error: () => {} }

describe('an OpenAPI 3.2 description (#31 §1)', () => {
  it('loads, naming once what it accepts and does not act on', async () => {
    app = await createApp({ spec: LIBRARY_SPEC, logger })
    const named = warnings.filter((line) => line.includes('OpenAPI 3.2'))
    expect(named).toHaveLength(1)
    expect(named[0]).toContain('"$self"')
    expect(named[0]).toContain('"in: querystring"')
    expect(app.mock.coverage().operations.map((o) => `${o.method} ${o.path}`)).toEqual([
      'QUERY /books',
      'GET /books/{id}',
      'LINK /books/{id}',
      'GET /catalogue',
    ])
  })

  it.each(libraryCases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    app ??= await createApp({ spec: LIBRARY_SPEC, logger })
    const response = await app.request(c.path, { method: c.method, headers: c.headers, body: c.body })
    const text = await response.text()
    expect(response.status, text).toBe(c.status)
    if (c.text !== undefined) expect(text).toBe(c.text)
    for (const [name, value] of Object.entries(c.answerHeaders ?? {})) expect(response.headers.get(name)).toBe(value)
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
