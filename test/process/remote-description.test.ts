/**
 * A description given by URL (#36 §10), as Prism users pass one: served by a real node:http server on
 * loopback, with a relative `$ref`, an ETag, and failures a server can give; the mock is the command
 * line, started as a user starts it.
 */
import { type Server, createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { freePort, startCli, startedUrl, stopProcesses, waitForOutput } from '../support/processes.js'

const auth = { authorization: 'Bearer t', 'content-type': 'application/json' }

const description = (extraPath = '') => `openapi: 3.0.3
info: { title: Remote Garden, version: 1.0.0 }
paths:
  /plants:
    post:
      operationId: addPlant
      requestBody:
        required: true
        content:
          application/json:
            schema: { $ref: 'schemas/plant.yaml#/NewPlant' }
      responses:
        '200':
          description: the plant
          content:
            application/json:
              schema: { $ref: 'schemas/plant.yaml#/Plant' }
${extraPath}`

const schemas = `NewPlant:
  type: object
  required: [name]
  properties:
    name: { type: string }
Plant:
  type: object
  required: [id, name]
  properties:
    id: { type: integer, example: 7 }
    name: { type: string, example: Fern }
`

/** What the server serves, by path; each text's ETag is its length and a counter, so a change shows. */
const served = new Map<string, string>()
const asked: Array<{ path: string; conditional: boolean }> = []
let version = 0
let server: Server
let base: string

beforeAll(async () => {
  server = createServer((request, response) => {
    const path = request.url!.split('?')[0]!
    asked.push({ path, conditional: request.headers['if-none-match'] !== undefined })
    // A file larger than the mock takes: its length is declared, and the mock stops there.
    if (path === '/api/huge.yaml')
      return void response.writeHead(200, { 'content-length': String(40 * 1024 * 1024) }).write('openapi: 3.0.3\n')
    const text = served.get(path)
    if (text === undefined) return void response.writeHead(404).end('no such file')
    const etag = `"${text.length}-${version}"`
    if (request.headers['if-none-match'] === etag) return void response.writeHead(304).end()
    response.writeHead(200, { 'content-type': 'application/yaml', etag }).end(text)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(
  () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    }),
)
afterEach(async () => {
  await stopProcesses()
  served.clear()
  asked.length = 0
})

describe('a description by URL (#36 §10)', () => {
  it('is fetched with the file its relative $ref names, and served: valid, invalid, and the schema from the other file', async () => {
    served.set('/api/openapi.yaml', description())
    served.set('/api/schemas/plant.yaml', schemas)
    const spawned = startCli([`${base}/api/openapi.yaml`, '--port', '0'])
    const url = await startedUrl(spawned, 10_000)
    expect(spawned.stdout()).toContain('Remote Garden')
    const ok = await fetch(`${url}/plants`, { method: 'POST', headers: auth, body: '{"name":"Ivy"}' })
    expect(ok.status).toBe(200)
    expect(await ok.json()).toEqual({ id: 7, name: 'Fern' })
    const bad = await fetch(`${url}/plants`, { method: 'POST', headers: auth, body: '{"name":3}' })
    // The description declares no 4xx: the mock's own status for a request that breaks it.
    expect(bad.status).toBe(422)
    expect(((await bad.json()) as { message: string }).message).toContain('body.name')
    expect(asked.map((a) => a.path)).toEqual(['/api/openapi.yaml', '/api/schemas/plant.yaml'])
  }, 20_000)

  it('under --watch, is asked again with its ETag, and a change is served without a restart', async () => {
    served.set('/api/openapi.yaml', description())
    served.set('/api/schemas/plant.yaml', schemas)
    const spawned = startCli([`${base}/api/openapi.yaml`, '--port', '0', '--watch'])
    const url = await startedUrl(spawned, 10_000)
    expect((await fetch(`${url}/status`)).status).toBe(404)
    version++
    served.set(
      '/api/openapi.yaml',
      description(`  /status:
    get:
      operationId: status
      responses:
        '200':
          description: up
          content:
            application/json:
              schema: { type: object, properties: { up: { type: boolean, example: true } } }
`),
    )
    await waitForOutput(
      spawned,
      new RegExp(`reloaded Remote Garden 1\\.0\\.0 after a change to ${base}/api/openapi\\.yaml`),
      15_000,
    )
    const status = await fetch(`${url}/status`)
    expect(status.status).toBe(200)
    expect(await status.json()).toEqual({ up: true })
    // Unchanged files were answered 304: asked with their ETag.
    expect(asked.some((a) => a.path === '/api/schemas/plant.yaml' && a.conditional)).toBe(true)
  }, 30_000)

  it('a 404 stops the start with description_unreadable naming the URL and the status', async () => {
    const spawned = startCli([`${base}/api/missing.yaml`, '--port', '0'])
    expect(await spawned.exited).toBe(1)
    expect(spawned.stderr()).toContain(`Cannot read the description ${base}/api/missing.yaml`)
    expect(spawned.stderr()).toContain('answered 404')
    expect(spawned.stderr()).toContain('[description_unreadable]')
  }, 20_000)

  it("a $ref that leads out of the description's folder is not followed, and says where it may lead", async () => {
    served.set('/api/openapi.yaml', description().replaceAll('schemas/plant.yaml', '../secrets/plant.yaml'))
    served.set('/secrets/plant.yaml', schemas)
    const spawned = startCli([`${base}/api/openapi.yaml`, '--port', '0'])
    expect(await spawned.exited).toBe(1)
    expect(spawned.stderr()).toContain(`outside ${base}/api/, where $refs may lead`)
    expect(asked.map((a) => a.path)).toEqual(['/api/openapi.yaml'])
  }, 20_000)

  it('a file larger than 32 MiB is not read: the start stops, naming the limit', async () => {
    const spawned = startCli([`${base}/api/huge.yaml`, '--port', '0'])
    expect(await spawned.exited).toBe(1)
    expect(spawned.stderr()).toContain('is 41943040 bytes, more than the 33554432 a description file may be')
  }, 20_000)

  it('a connection refused stops the start with the reason', async () => {
    const closed = await freePort()
    const spawned = startCli([`http://127.0.0.1:${closed}/api.yaml`, '--port', '0'])
    expect(await spawned.exited).toBe(1)
    expect(spawned.stderr()).toContain(
      `Cannot read the description http://127.0.0.1:${closed}/api.yaml: could not be fetched: connect ECONNREFUSED`,
    )
  }, 20_000)
})
