import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type MockServer, startMockServer } from '../../src/index.js'

const root = new URL('../../', import.meta.url).pathname
let dir: string
let mock: MockServer | undefined
let errors: string[]

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mock-watch-'))
  cpSync(join(root, 'openapi.yaml'), join(dir, 'openapi.yaml'))
  cpSync(join(root, 'fixtures'), join(dir, 'fixtures'), { recursive: true })
  errors = []
  const logger = { info() {}, warn() {}, error: (message: string) => void errors.push(message) }
  mock = await startMockServer({ spec: join(dir, 'openapi.yaml'), port: 0, watch: true, logger })
})

afterEach(async () => {
  await mock?.close()
  rmSync(dir, { recursive: true, force: true })
})

function postPlant(
  server: MockServer,
  agent?: Agent,
): Promise<{ status: number; body: string; reusedSocket: boolean }> {
  return new Promise((resolve, reject) => {
    const sent = request(`${server.url}/plants`, {
      method: 'POST',
      agent,
      headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
      timeout: 5_000,
    })
    sent.on('response', (response) => {
      let body = ''
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
      response.on('end', () => resolve({ status: response.statusCode!, body, reusedSocket: sent.reusedSocket }))
    })
    sent.on('error', reject)
    sent.end('{"id":1,"name":"Fern"}')
  })
}

const fixture = (name: string) => join(dir, 'fixtures', 'addPlant', name)

/** Edits the description to declare `GET /health` (204), and waits until the reloaded version serves it. */
async function addHealthOperation(server: MockServer): Promise<void> {
  const spec = readFileSync(join(dir, 'openapi.yaml'), 'utf8').replace(
    'paths:\n',
    'paths:\n  /health:\n    get:\n      operationId: health\n      security: []\n      responses:\n        "204":\n          description: fine\n',
  )
  writeFileSync(join(dir, 'openapi.yaml'), spec)
  await expect
    .poll(async () => (await fetch(`${server.url}/health`)).status, { timeout: 5_000, interval: 100 })
    .toBe(204)
}

describe('--watch (#6)', () => {
  it('serves an edited fixture without a restart (#6)', async () => {
    writeFileSync(fixture('200.json'), '{"name":"Edited"}')
    await expect
      .poll(async () => (await postPlant(mock!)).body, { timeout: 5_000, interval: 100 })
      .toBe('{"name":"Edited"}')
  })

  it('keeps serving the last good version after a broken edit, and says why (#6)', async () => {
    writeFileSync(fixture('200.json'), '{"name": 5}')
    await expect
      .poll(() => errors.join('\n'), { timeout: 5_000, interval: 100 })
      .toContain('Still serving the last good version')
    expect(errors[0]).toContain('200.json')
    const answer = await postPlant(mock!)
    expect(answer.status).toBe(200)
    expect(JSON.parse(answer.body)).toEqual({ name: 'Fern' })
  })

  it('recovers when the broken edit is fixed (#6)', async () => {
    writeFileSync(fixture('200.json'), '{"name": 5}')
    await expect.poll(() => errors.length, { timeout: 5_000, interval: 100 }).toBeGreaterThan(0)
    writeFileSync(fixture('200.json'), '{"name":"Fixed"}')
    await expect
      .poll(async () => (await postPlant(mock!)).body, { timeout: 5_000, interval: 100 })
      .toBe('{"name":"Fixed"}')
  })

  it('reloads an edited description: a new operation is served (#6)', async () => {
    await addHealthOperation(mock!)
    expect(mock!.operations).toContain('GET /health')
  })

  it('keeps the journal and the active scenario across a reload (#6)', async () => {
    mock!.useScenario('error')
    expect((await postPlant(mock!)).status).toBe(400)
    writeFileSync(fixture('400.json'), '{"error":400,"message":"Reloaded."}')
    await expect
      .poll(async () => (await postPlant(mock!)).body, { timeout: 5_000, interval: 100 })
      .toContain('Reloaded.')
    expect(mock!.activeScenario()).toBe('error')
    expect(mock!.requests().length).toBeGreaterThanOrEqual(2)
    expect(mock!.requests()[0]?.status).toBe(400)
  })

  it('keeps a kept-alive connection open across a reload (#6)', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    try {
      expect((await postPlant(mock!, agent)).status).toBe(200)
      writeFileSync(fixture('200.json'), '{"name":"Edited"}')
      await expect
        .poll(async () => (await postPlant(mock!)).body, { timeout: 5_000, interval: 100 })
        .toBe('{"name":"Edited"}')
      const again = await postPlant(mock!, agent)
      expect(again.body).toBe('{"name":"Edited"}')
      expect(again.reusedSocket).toBe(true)
    } finally {
      agent.destroy()
    }
  })
})

describe('--watch over many reloads (#35)', () => {
  it('leaves no listener behind a reload: 15 reloads raise no MaxListenersExceededWarning', async () => {
    const warnings: string[] = []
    const onWarning = (warning: Error) => void warnings.push(`${warning.name}: ${warning.message}`)
    process.on('warning', onWarning)
    try {
      for (let edit = 1; edit <= 15; edit++) {
        writeFileSync(fixture('200.json'), JSON.stringify({ name: `Edit ${edit}` }))
        await expect
          .poll(async () => (await postPlant(mock!)).body, { timeout: 5_000, interval: 50 })
          .toBe(JSON.stringify({ name: `Edit ${edit}` }))
      }
      // Node emits its warnings on the next turn.
      await new Promise((resolve) => setImmediate(resolve))
    } finally {
      process.off('warning', onWarning)
    }
    expect(warnings.filter((warning) => warning.includes('MaxListenersExceeded'))).toEqual([])
  })

  it('lets an answer delayed across a reload wait out its delay', async () => {
    const started = performance.now()
    const delayed = fetch(`${mock!.url}/plants`, {
      method: 'POST',
      headers: { authorization: 'Bearer t', 'content-type': 'application/json', prefer: 'delay=1500' },
      body: '{"id":1,"name":"Fern"}',
    })
    writeFileSync(fixture('200.json'), '{"name":"Edited"}')
    await expect
      .poll(async () => (await postPlant(mock!)).body, { timeout: 5_000, interval: 50 })
      .toBe('{"name":"Edited"}')
    const answer = await delayed
    expect(answer.status).toBe(200)
    expect(performance.now() - started).toBeGreaterThanOrEqual(1_400)
  })
})

/**
 * A fixture edited to hold a placeholder that can never be filled (#13 item 5) is refused like any
 * broken edit: the error names the file, the placeholder and its code, and the last good version serves.
 */
describe('--watch and placeholders that can never be filled (#13)', () => {
  it.each([
    [
      'a filter',
      '{{request.body.name | upper}}',
      'filters such as "| upper" are not supported',
      'template_bad_expression',
    ],
    [
      'a path parameter the path lacks',
      '{{request.params.id}}',
      'request.params has no id: the path /plants of addPlant has no parameters',
      'template_never_matches',
    ],
  ])(
    'keeps serving the last good version after an edit adding %s, naming the file and the placeholder',
    async (_label, placeholder, why, code) => {
      writeFileSync(join(dir, 'fixtures', 'addPlant', '200.json'), JSON.stringify({ name: placeholder }))
      await expect
        .poll(() => errors.join('\n'), { timeout: 5_000, interval: 100 })
        .toContain('Still serving the last good version')
      expect(errors[0]).toContain(join(dir, 'fixtures', 'addPlant', '200.json'))
      expect(errors[0]).toContain(`"${placeholder}"`)
      expect(errors[0]).toContain(why)
      expect(errors[0]).toMatch(new RegExp(`Still serving the last good version\\. \\[${code}\\]$`))
      const answer = await postPlant(mock!)
      expect(answer.status).toBe(200)
      expect(JSON.parse(answer.body)).toEqual({ name: 'Fern' })
    },
  )
})

describe('--watch with --stateful (#15)', () => {
  it('carries the data across a reload: a plant created before it is still there after', async () => {
    await mock?.close()
    mock = await startMockServer({
      spec: join(dir, 'openapi.yaml'),
      port: 0,
      watch: true,
      stateful: true,
      logger: silent,
    })
    expect((await postPlant(mock)).status).toBe(200)
    await addHealthOperation(mock)
    // The reloaded version still knows plant 1: the same create is refused.
    const again = await postPlant(mock)
    expect(again.status).toBe(400)
    expect(again.body).toContain('A plant with id 1 already exists.')
    expect(mock.state.get('plants')).toEqual([{ id: 1, name: 'Fern' }])
  })
})

const silent = { info() {}, warn() {}, error() {} }
