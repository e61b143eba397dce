/**
 * Latency, faults and CORS over a real socket (#3 §6, §7): a mock on port 0 and real clients
 * (global fetch, node:http where the failure must be seen at the socket).
 * Timing is checked loosely: at least the delay, and well under a generous bound.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { type IncomingHttpHeaders, request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type AppOptions, type MockServer, startMockServer } from '../../src/index.js'
import { silentLogger } from '../../src/common/log.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const auth = { authorization: 'Bearer t', 'content-type': 'application/json' }
const VALID = '{"id":1,"name":"Fern"}'
/** Timers may fire up to a millisecond early against performance.now() (libuv keeps time in whole ms). */
const CLOCK_SLACK_MS = 2
/** Generous: a loaded CI machine is slow, but not seconds slow. */
const UPPER_BOUND_MS = 3_000

const servers: MockServer[] = []
let faultFixtures: string

async function start(options: AppOptions = {}): Promise<MockServer> {
  const server = await startMockServer({ port: 0, logger: silentLogger, ...options })
  servers.push(server)
  return server
}

beforeAll(() => {
  faultFixtures = mkdtempSync(join(tmpdir(), 'fault-fixtures-'))
  cpSync(`${root}fixtures/addPlant`, join(faultFixtures, 'addPlant'), { recursive: true })
  writeFileSync(
    join(faultFixtures, 'scenarios.yaml'),
    [
      'reset:\n  rules:\n    addPlant: { fault: reset }',
      'empty:\n  rules:\n    addPlant: { fault: empty }',
      'malformed:\n  rules:\n    addPlant: { fault: malformed }',
      'hang:\n  rules:\n    addPlant: { fault: hang }',
      'slow-plant:\n  rules:\n    "POST /plants": { delay: 300 }',
      'slow-refusal:\n  rules:\n    "*": { delay: 300 }\n    addPlant: { status: 400, example: duplicate-id }',
    ].join('\n'),
  )
})

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()))
  rmSync(faultFixtures, { recursive: true, force: true })
})

interface Answer {
  status: number
  headers: IncomingHttpHeaders
  text: string
}

/** One request with node:http; rejects with the socket error a client would see. Bounded by `timeoutMs`. */
function send(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; timeoutMs?: number } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      url,
      {
        method: init.method ?? 'POST',
        headers: init.headers ?? auth,
        signal: AbortSignal.timeout(init.timeoutMs ?? 10_000),
      },
      (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('end', () =>
          resolve({
            status: response.statusCode!,
            headers: response.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        )
        response.on('error', reject)
      },
    )
    outgoing.on('error', reject)
    outgoing.end(init.method === 'GET' || init.method === 'OPTIONS' ? undefined : (init.body ?? VALID))
  })
}

async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now()
  const result = await work()
  return { result, ms: performance.now() - started }
}

function postPlant(server: MockServer, headers: Record<string, string> = {}) {
  return fetch(`${server.url}/plants`, {
    method: 'POST',
    headers: { ...auth, ...headers },
    body: VALID,
    signal: AbortSignal.timeout(10_000),
  })
}

describe('latency', () => {
  let delayed: MockServer
  let prompt: MockServer

  beforeAll(async () => {
    ;[delayed, prompt] = await Promise.all([start({ delay: 300 }), start({ fixtures: faultFixtures })])
  })

  it('--delay holds every answer at least that long (#3)', async () => {
    const { result, ms } = await timed(() => postPlant(delayed))
    expect(result.status).toBe(200)
    expect(ms).toBeGreaterThanOrEqual(300 - CLOCK_SLACK_MS)
    expect(ms).toBeLessThan(300 + UPPER_BOUND_MS)
  })

  it('--delay holds error answers too', async () => {
    const { result, ms } = await timed(() => postPlant(delayed, { authorization: '' }))
    expect(result.status).toBe(401)
    expect(ms).toBeGreaterThanOrEqual(300 - CLOCK_SLACK_MS)
  })

  it('a delay range holds each answer between its bounds (#3)', async () => {
    const ranged = await start({ delay: '200-400' })
    const runs = await Promise.all([1, 2, 3].map(() => timed(() => postPlant(ranged))))
    for (const { result, ms } of runs) {
      expect(result.status).toBe(200)
      expect(ms).toBeGreaterThanOrEqual(200 - CLOCK_SLACK_MS)
      expect(ms).toBeLessThan(400 + UPPER_BOUND_MS)
    }
  })

  it('Prefer: delay=MS holds one answer at least that long (#3)', async () => {
    const { result, ms } = await timed(() => postPlant(prompt, { prefer: 'delay=300' }))
    expect(result.status).toBe(200)
    expect(ms).toBeGreaterThanOrEqual(300 - CLOCK_SLACK_MS)
    expect(ms).toBeLessThan(300 + UPPER_BOUND_MS)
  })

  it('Prefer: delay=0 answers at once despite --delay', async () => {
    const slow = await start({ delay: 5_000 })
    const { result, ms } = await timed(() => postPlant(slow, { prefer: 'delay=0' }))
    expect(result.status).toBe(200)
    expect(ms).toBeLessThan(UPPER_BOUND_MS)
  })

  it('Prefer: delay=abc gets 400 (#3)', async () => {
    const response = await postPlant(prompt, { prefer: 'delay=abc' })
    expect(response.status).toBe(400)
    expect(((await response.json()) as { message: string }).message).toMatch(
      /Prefer: delay= must be a whole number of milliseconds/,
    )
  })

  it('Prefer: delay above ten minutes gets 400', async () => {
    const response = await postPlant(prompt, { prefer: 'delay=600001' })
    expect(response.status).toBe(400)
  })

  it('a scenario rule delays its operation (#3)', async () => {
    const { result, ms } = await timed(() => postPlant(prompt, { 'x-mock-scenario': 'slow-plant' }))
    expect(result.status).toBe(200)
    expect(ms).toBeGreaterThanOrEqual(300 - CLOCK_SLACK_MS)
    expect(ms).toBeLessThan(300 + UPPER_BOUND_MS)
  })

  it('a "*" delay and an operation status combine in one scenario', async () => {
    const { result, ms } = await timed(() => postPlant(prompt, { 'x-mock-scenario': 'slow-refusal' }))
    expect(result.status).toBe(400)
    expect(await result.json()).toEqual({ error: 400, message: 'A plant with this id already exists.' })
    expect(ms).toBeGreaterThanOrEqual(300 - CLOCK_SLACK_MS)
  })

  it('Prefer: delay=0 overrides a scenario delay', async () => {
    const { ms } = await timed(() => postPlant(prompt, { 'x-mock-scenario': 'slow-plant', prefer: 'delay=0' }))
    expect(ms).toBeLessThan(300)
  })
})

describe('faults', () => {
  let server: MockServer

  beforeAll(async () => {
    server = await start({ fixtures: faultFixtures })
  })

  function faulty(scenario: string, timeoutMs?: number) {
    return send(`${server.url}/plants`, { headers: { ...auth, 'x-mock-scenario': scenario }, timeoutMs })
  }

  it('reset makes the client see ECONNRESET (#3)', async () => {
    await expect(faulty('reset')).rejects.toMatchObject({
      code: 'ECONNRESET',
      message: expect.stringMatching(/read ECONNRESET/),
    })
  })

  it('reset fails a fetch with a network error', async () => {
    const error = await postPlant(server, { 'x-mock-scenario': 'reset' }).then(
      () => undefined,
      (e: unknown) => e as Error & { cause?: { code?: string } },
    )
    expect(error).toBeInstanceOf(TypeError)
    expect(error?.cause?.code).toBe('ECONNRESET')
  })

  it('empty closes the connection before any byte of a response (#3)', async () => {
    await expect(faulty('empty')).rejects.toMatchObject({ message: 'socket hang up' })
  })

  it('malformed sends the status and JSON type with a body that does not parse (#3)', async () => {
    const answer = await faulty('malformed')
    expect(answer.status).toBe(200)
    expect(answer.headers['content-type']).toMatch(/^application\/json\b/)
    expect(answer.text.length).toBeGreaterThan(0)
    expect(() => JSON.parse(answer.text)).toThrow(SyntaxError)
  })

  it('malformed cuts a real body: what arrives starts the fixture', async () => {
    const answer = await faulty('malformed')
    expect('{"name":"Fern"}'.startsWith(answer.text)).toBe(true)
  })

  it('hang gives no answer until the client gives up (#3)', async () => {
    const started = performance.now()
    const outcome = await fetch(`${server.url}/plants`, {
      method: 'POST',
      headers: { ...auth, 'x-mock-scenario': 'hang' },
      body: VALID,
      signal: AbortSignal.timeout(500),
    }).then(
      (response) => response.status,
      (error: Error) => error.name,
    )
    expect(outcome).toBe('TimeoutError')
    expect(performance.now() - started).toBeGreaterThanOrEqual(500 - CLOCK_SLACK_MS)
  })

  it('a fault is journaled with the request', async () => {
    // A session of its own: a hanging request of another test may still be journaled late.
    const headers = { ...auth, 'x-mock-session': 'journal-of-faults' }
    await send(`${server.url}/plants`, { headers: { ...headers, 'x-mock-scenario': 'malformed' } })
    await send(`${server.url}/plants`, { headers: { ...headers, 'x-mock-scenario': 'reset' } }).catch(() => undefined)
    await expect
      .poll(() => server.requests({ session: 'journal-of-faults' }).map((r) => r.fault), { timeout: 2_000 })
      .toEqual(['malformed', 'reset'])
  })

  it('a fault on a request with an Origin logs no unexpected failure (#3)', async () => {
    const errors: string[] = []
    const own = await start({
      fixtures: faultFixtures,
      logger: { info() {}, warn() {}, error: (message: string) => void errors.push(message) },
    })
    await send(`${own.url}/plants`, {
      headers: { ...auth, origin: 'https://app.example', 'x-mock-scenario': 'reset' },
    }).catch(() => undefined)
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(errors).toEqual([])
  })

  it('a reset is journaled as no response, status 0, not as 200 (#3)', async () => {
    const own = await start({ fixtures: faultFixtures })
    await send(`${own.url}/plants`, { headers: { ...auth, 'x-mock-scenario': 'reset' } }).catch(() => undefined)
    await expect.poll(() => own.requests().map((r) => r.status), { timeout: 2_000 }).toEqual([0])
  })

  it('faults leave other operations and scenarios alone', async () => {
    const response = await postPlant(server)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ name: 'Fern' })
  })

  it('close() while a request hangs finishes within 2 s (#3)', async () => {
    const own = await startMockServer({ port: 0, logger: silentLogger, fixtures: faultFixtures, scenario: 'hang' })
    const hanging = send(`${own.url}/plants`, { timeoutMs: 10_000 }).then(
      () => 'answered',
      (error: NodeJS.ErrnoException) => error.code ?? error.message,
    )
    // Let the request reach the server before closing.
    await new Promise((resolve) => setTimeout(resolve, 200))
    const { ms } = await timed(() => own.close())
    expect(ms).toBeLessThan(2_000)
    expect(await hanging).not.toBe('answered')
  })
})

describe('CORS', () => {
  let server: MockServer
  let closed: MockServer
  const origin = 'https://app.example'

  beforeAll(async () => {
    ;[server, closed] = await Promise.all([start(), start({ cors: false })])
  })

  function preflight(target: MockServer, path: string, method = 'POST') {
    return send(`${target.url}${path}`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': method,
        'access-control-request-headers': 'authorization, content-type',
      },
    })
  }

  it('reflects the Origin with credentials allowed (#3)', async () => {
    const answer = await send(`${server.url}/plants`, { headers: { ...auth, origin } })
    expect(answer.status).toBe(200)
    expect(answer.headers['access-control-allow-origin']).toBe(origin)
    expect(answer.headers['access-control-allow-credentials']).toBe('true')
  })

  it('exposes the headers a client needs to read (#3)', async () => {
    const answer = await send(`${server.url}/plants`, { headers: { ...auth, origin } })
    const exposed = String(answer.headers['access-control-expose-headers']).toLowerCase()
    for (const name of ['www-authenticate', 'allow', 'x-mock-scenario', 'x-mock-session', 'retry-after'])
      expect(exposed).toContain(name)
  })

  it('varies on Origin, since the answer reflects it', async () => {
    const answer = await send(`${server.url}/plants`, { headers: { ...auth, origin } })
    expect(String(answer.headers.vary).toLowerCase()).toContain('origin')
  })

  it('adds CORS headers to a 401, so the browser can read the challenge', async () => {
    const answer = await send(`${server.url}/plants`, { headers: { 'content-type': 'application/json', origin } })
    expect(answer.status).toBe(401)
    expect(answer.headers['access-control-allow-origin']).toBe(origin)
    expect(answer.headers['www-authenticate']).toMatch(/^Bearer/)
  })

  it('adds no CORS headers to a request without Origin', async () => {
    const answer = await send(`${server.url}/plants`)
    expect(answer.headers['access-control-allow-origin']).toBeUndefined()
  })

  it('answers a preflight for a declared operation with 204 and the allowed methods and headers (#3)', async () => {
    const answer = await preflight(server, '/plants')
    expect(answer.status).toBe(204)
    expect(answer.headers['access-control-allow-origin']).toBe(origin)
    expect(answer.headers['access-control-allow-methods']).toMatch(/\bPOST\b/)
    expect(String(answer.headers['access-control-allow-headers']).toLowerCase()).toMatch(
      /authorization.*content-type|content-type.*authorization/,
    )
    expect(answer.text).toBe('')
  })

  it('answers a preflight without credentials: no 401', async () => {
    const answer = await preflight(server, '/plants')
    expect(answer.status).not.toBe(401)
  })

  it('does not journal a preflight as a request to the API', async () => {
    server.clearRequests()
    await preflight(server, '/plants')
    expect(server.requests({ method: 'POST' })).toEqual([])
  })

  // A preflight answered 404 or 405 was an opaque CORS error to the page: it now passes, and the
  // request that follows shows the mock's own 404 or 405, CORS headers included (#13).
  it('answers a preflight for an unknown path with 204 and CORS headers, so the page then sees the 404 (#13)', async () => {
    const answer = await preflight(server, '/trees')
    expect(answer.status).toBe(204)
    expect(answer.headers['access-control-allow-origin']).toBe(origin)
    expect(answer.headers['access-control-allow-methods']).toMatch(/\bPOST\b/)
  })

  it('answers a preflight for an undeclared method with 204 and CORS headers, so the page then sees the 405 (#13)', async () => {
    const answer = await preflight(server, '/plants', 'DELETE')
    expect(answer.status).toBe(204)
    expect(answer.headers['access-control-allow-origin']).toBe(origin)
  })

  it('cors: false adds no CORS headers (#3)', async () => {
    const answer = await send(`${closed.url}/plants`, { headers: { ...auth, origin } })
    expect(answer.status).toBe(200)
    expect(answer.headers['access-control-allow-origin']).toBeUndefined()
    expect(answer.headers['access-control-allow-credentials']).toBeUndefined()
    expect(answer.headers['access-control-expose-headers']).toBeUndefined()
  })

  it('cors: false answers a preflight for a declared path with 405 (#3)', async () => {
    const answer = await preflight(closed, '/plants')
    expect(answer.status).toBe(405)
    expect(answer.headers.allow).toBe('POST')
    expect(answer.headers['access-control-allow-origin']).toBeUndefined()
  })

  it('cors: false answers a preflight for an unknown path with 404', async () => {
    const answer = await preflight(closed, '/trees')
    expect(answer.status).toBe(404)
  })
})
