/**
 * The admin surface (#5): the warning for an open admin API on a non-loopback host, the
 * constant-time token compare, redaction in the journal, and no file read at request time (none
 * outside the description and the fixtures at start-up).
 */
import { request } from 'node:http'
import { fileURLToPath } from 'node:url'
import fc from 'fast-check'
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { createTokenMatcher } from '../../src/auth/check-security.js'
import { type MockApp, type MockServer, createApp, startMockServer } from '../../src/index.js'
import { silentLogger } from '../../src/common/log.js'
import { nodePlatform } from '../../src/node/node-platform.js'

const SEED = Number(process.env.FC_SEED ?? 20_250_505)

// Every file the mock's own modules open or list, and every timing-safe compare, is recorded.
const { recorded, recording } = vi.hoisted(() => {
  const recorded = { files: [] as string[], compares: [] as Array<[number, number]> }
  /** The function, recording the file each call names (its first argument). */
  const recording =
    <F extends (...args: any[]) => any>(fn: F) =>
    (...args: Parameters<F>): ReturnType<F> => {
      recorded.files.push(String(args[0]))
      return fn(...args)
    }
  return { recorded, recording }
})

vi.mock('node:fs/promises', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:fs/promises')>()
  return {
    ...original,
    default: original,
    readFile: recording(original.readFile),
    readdir: recording(original.readdir),
    stat: recording(original.stat),
    open: recording(original.open),
  }
})

vi.mock('node:fs', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:fs')>()
  return {
    ...original,
    default: original,
    readFileSync: recording(original.readFileSync),
    existsSync: recording(original.existsSync),
    createReadStream: recording(original.createReadStream),
    openSync: recording(original.openSync),
    readdirSync: recording(original.readdirSync),
    statSync: recording(original.statSync),
  }
})

vi.mock('node:crypto', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:crypto')>()
  const timingSafeEqual = (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
    recorded.compares.push([a.byteLength, b.byteLength])
    return original.timingSafeEqual(a, b)
  }
  return { ...original, default: { ...original, timingSafeEqual }, timingSafeEqual }
})

const root = fileURLToPath(new URL('../..', import.meta.url))
const specPath = fileURLToPath(new URL('../../openapi.yaml', import.meta.url))
const fixturesPath = fileURLToPath(new URL('../../fixtures', import.meta.url))

const servers: MockServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

function capturingLogger() {
  const warnings: string[] = []
  return { warnings, logger: { info() {}, warn: (message: string) => void warnings.push(message), error() {} } }
}

describe('open admin API warning', () => {
  it('warns, naming the risk, when bound to 0.0.0.0 without an admin token (#5)', async () => {
    const { warnings, logger } = capturingLogger()
    servers.push(await startMockServer({ host: '0.0.0.0', port: 0, logger }))
    expect(warnings).toHaveLength(1)
    const [warning] = warnings
    expect(warning).toContain('/__mock')
    expect(warning).toContain('0.0.0.0')
    expect(warning).toMatch(/anyone who reaches this address/)
    expect(warning).toMatch(/switch scenarios/)
    expect(warning).toMatch(/read journaled requests and their bodies/)
    expect(warning).toContain('--admin-token')
  })

  it('does not warn on 0.0.0.0 with an admin token, with the admin API off, or on loopback (#5)', async () => {
    for (const options of [
      { host: '0.0.0.0', adminToken: 's3cret' },
      { host: '0.0.0.0', admin: false },
      { host: '127.0.0.1' },
      { host: '::1' },
    ]) {
      const { warnings, logger } = capturingLogger()
      servers.push(await startMockServer({ ...options, port: 0, logger }))
      expect(warnings, JSON.stringify(options)).toEqual([])
    }
  })
})

describe('admin token compare', () => {
  it('compares every candidate in constant time: one 32-byte timing-safe compare per accepted token, whatever the guess (#5)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 40 }), { minLength: 1, maxLength: 3 }),
        fc.string({ maxLength: 200 }),
        fc.boolean(),
        (tokens, guess, useAccepted) => {
          const candidate = useAccepted ? tokens[0]! : guess
          const matcher = createTokenMatcher(tokens, nodePlatform.crypto)
          recorded.compares.length = 0
          expect(matcher(candidate)).toBe(tokens.includes(candidate))
          // Digests of equal length, compared for every accepted token: neither the length nor the
          // first differing byte of the guess changes the work done.
          expect(recorded.compares).toEqual(tokens.map(() => [32, 32]))
        },
      ),
      { seed: SEED, numRuns: 200 },
    )
  })

  it('admits only the exact admin token to the admin API, refusing prefixes, extensions and case changes (#5)', async () => {
    const app = await createApp({ adminToken: 'Adm1n-s3cret' })
    const status = async (authorization: string) =>
      (await app.request('/__mock/scenario', { headers: { authorization } })).status
    expect(await status('Bearer Adm1n-s3cret')).toBe(200)
    for (const guess of [
      'Bearer Adm1n-s3cre',
      'Bearer Adm1n-s3cret0',
      'Bearer adm1n-s3cret',
      'Bearer ',
      'Basic Adm1n-s3cret',
      `Bearer ${'A'.repeat(10_000)}`,
    ]) {
      expect(await status(guess), guess).toBe(401)
    }
  })
})

describe('journal redaction', () => {
  let app: MockApp
  beforeAll(async () => {
    app = await createApp()
  })

  it('never shows Authorization, Proxy-Authorization or Cookie values in the journal, whatever their spelling (#5)', async () => {
    const secret = fc.string({ unit: fc.constantFrom(...'abcdefXYZ0123456789-_.'), minLength: 12, maxLength: 40 })
    await fc.assert(
      fc.asyncProperty(
        secret,
        fc.constantFrom('Authorization', 'AUTHORIZATION', 'authorization'),
        fc.constantFrom('Cookie', 'COOKIE'),
        fc.boolean(),
        async (token, authName, cookieName, repeated) => {
          app.mock.clearRequests()
          const headers = new Headers()
          headers.append(authName, `Bearer ${token}`)
          if (repeated) headers.append(authName, `Bearer ${token}-again`)
          headers.append(cookieName, `session=${token}; other=${token}`)
          headers.append('proxy-authorization', `Basic ${token}`)
          headers.append('content-type', 'application/json')
          await (await app.request('/plants', { method: 'POST', headers, body: '{"id":1,"name":"Fern"}' })).text()
          const listed = await (await app.request('/__mock/requests')).text()
          expect(listed).not.toContain(token)
          expect(JSON.stringify(app.mock.requests())).not.toContain(token)
          const [entry] = app.mock.requests()
          expect(entry!.headers).toMatchObject({
            authorization: '[redacted]',
            cookie: '[redacted]',
            'proxy-authorization': '[redacted]',
          })
        },
      ),
      { seed: SEED, numRuns: 30 },
    )
  })
})

describe('file access', () => {
  const hostile: Array<[string, string, Record<string, string>?]> = [
    ['GET', '/__mock/spec?path=../../../../etc/passwd'],
    ['GET', '/__mock/spec?file=/etc/passwd&spec=package.json'],
    ['GET', '/__mock/spec/../../../../etc/passwd'],
    ['GET', '/__mock/spec/%2e%2e/%2e%2e/%2e%2e/etc/passwd'],
    ['GET', '/__mock/%2e%2e/%2e%2e/etc/passwd'],
    ['GET', '/__mock/spec%2f..%2f..%2fpackage.json'],
    ['GET', '/__mock/..%2f..%2fpackage.json'],
    ['GET', '/..%2f..%2f..%2fetc/passwd'],
    ['GET', '/%2e%2e/%2e%2e/etc/passwd'],
    ['GET', '/fixtures/addPlant/200.json'],
    ['GET', '/openapi.yaml'],
    ['GET', '/package.json'],
    ['POST', '/plants/../../etc/passwd'],
    ['GET', '/__mock/requests?path=/etc/passwd&operation=../../package.json'],
    ['PUT', '/__mock/scenario', { 'content-type': 'application/json' }],
    ['POST', '/plants', { prefer: 'example=../../../../etc/passwd' }],
    ['POST', '/plants', { prefer: 'example=../fixtures/addPlant/200' }],
    ['POST', '/plants', { 'x-mock-scenario': '../../../../etc/passwd' }],
    ['POST', '/plants', { 'x-mock-scenario': '../fixtures/scenarios' }],
  ]

  it('reads only the description and the fixtures at start-up (#5)', async () => {
    recorded.files.length = 0
    await createApp()
    expect(recorded.files.length).toBeGreaterThan(0)
    for (const file of recorded.files) {
      const inside = file === specPath || file === fixturesPath || file.startsWith(`${fixturesPath}/`)
      expect(inside, `${file} (relative to the repository: ${file.replace(root, '')})`).toBe(true)
    }
  })

  it('reads no file while answering requests, whatever ../ or %2e%2e they carry, and serves the description as written (#5)', async () => {
    const app = await createApp()
    const { readFile } = await vi.importActual<typeof import('node:fs/promises')>('node:fs/promises')
    const specText = await readFile(specPath, 'utf8')
    recorded.files.length = 0
    for (const [method, path, headers = {}] of hostile) {
      const body =
        method === 'GET'
          ? undefined
          : path === '/__mock/scenario'
            ? '{"name":"../../../../etc/passwd"}'
            : '{"id":1,"name":"Fern"}'
      const response = await app.request(path, {
        method,
        headers: { authorization: 'Bearer t', 'content-type': 'application/json', ...headers },
        body,
      })
      const text = await response.text()
      const where = `${method} ${path} → ${response.status}`
      expect(response.status, where).toBeLessThan(500)
      expect(text, where).not.toMatch(/root:x?:0:0|"name": "plant-store-mock"/)
      if (response.status === 200 && new URL(`http://mock${path}`).pathname === '/__mock/spec')
        expect(text, where).toBe(specText)
      else if (new URL(`http://mock${path}`).pathname.startsWith('/__mock/spec'))
        expect(response.status, where).toBe(404)
    }
    expect(recorded.files).toEqual([])
  })
})

describe('who may drive the admin API of a mock on loopback (#12)', () => {
  it('answers a loopback Host, and refuses another with 403, health excepted', async () => {
    const app = await createApp({ logger: silentLogger })
    for (const host of ['localhost:4010', '127.0.0.1:4010', '[::1]:4010', 'mock.localhost']) {
      expect((await app.request('/__mock/requests', { headers: { host } })).status, host).toBe(200)
    }
    const rebound = await app.request('/__mock/requests', { headers: { host: 'attacker.example:4010' } })
    expect(rebound.status).toBe(403)
    expect(((await rebound.json()) as { message: string }).message).toContain('--allowed-hosts')
    expect((await app.request('/__mock/health', { headers: { host: 'attacker.example' } })).status).toBe(200)
  })

  it('answers a Host given with allowedHosts, and any Host when it listens beyond loopback', async () => {
    const allowed = await createApp({ logger: silentLogger, allowedHosts: ['mock.internal'] })
    expect((await allowed.request('/__mock/requests', { headers: { host: 'mock.internal:4010' } })).status).toBe(200)
    const everywhere = await createApp({ logger: silentLogger, host: '0.0.0.0' })
    expect((await everywhere.request('/__mock/requests', { headers: { host: 'mock' } })).status).toBe(200)
  })

  it('refuses to change state for a page of another site, even with text/plain that needs no preflight', async () => {
    const app = await createApp({ logger: silentLogger })
    app.mock.useScenario('error')
    const blind = await app.request('/__mock/reset', {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'content-type': 'text/plain' },
    })
    expect(blind.status).toBe(403)
    expect(app.mock.activeScenario()).toBe('error')
    const sameSite = await app.request('/__mock/reset', {
      method: 'POST',
      headers: { origin: 'http://localhost:5173' },
    })
    expect(sameSite.status).toBe(200)
    expect(app.mock.activeScenario()).toBe('default')
    const plainFromPage = await app.request('/__mock/scenario', {
      method: 'PUT',
      headers: { origin: 'http://localhost:5173', 'content-type': 'text/plain' },
      body: '{"name":"error"}',
    })
    expect(plainFromPage.status).toBe(403)
    expect((await app.request('/__mock/scenario', { method: 'PUT', body: '{"name":"error"}' })).status).toBe(200)
  })

  it('refuses a rebinding Host over a real socket too', async () => {
    const mock = await startMockServer({ port: 0, logger: silentLogger })
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(`${mock.url}/__mock/requests`, { headers: { host: 'rebind.attacker.example' } }, (res) => {
          res.resume()
          resolve(res.statusCode!)
        })
        req.on('error', reject)
        req.end()
      })
      expect(status).toBe(403)
    } finally {
      await mock.close()
    }
  })
})

describe('GET /__mock/requests a page at a time (#12)', () => {
  it('answers 100 entries and the cursor of the next page, then the rest; refuses a bad limit or an unknown filter', async () => {
    const app = await createApp({ logger: silentLogger })
    for (let n = 0; n < 150; n++)
      await app.request(`/plants?n=${n}`, {
        method: 'POST',
        headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
        body: '{"id":1,"name":"Fern"}',
      })
    const first = (await (await app.request('/__mock/requests')).json()) as {
      requests: Array<{ query: string }>
      next?: string
    }
    expect(first.requests).toHaveLength(100)
    expect(first.requests[0]!.query).toBe('n=0')
    expect(first.next).toMatch(/^\d+$/)
    const rest = (await (await app.request(`/__mock/requests?cursor=${first.next}&limit=1000`)).json()) as {
      requests: Array<{ query: string }>
      next?: string
    }
    expect(rest.requests.map((r) => r.query)).toEqual(Array.from({ length: 50 }, (_, i) => `n=${100 + i}`))
    expect(rest.next).toBeUndefined()
    expect((await app.request('/__mock/requests?limit=0')).status).toBe(400)
    const unknown = await app.request('/__mock/requests?stauts=200')
    expect(unknown.status).toBe(400)
    expect(((await unknown.json()) as { message: string }).message).toContain(
      'known: method, path, operation, status, valid, since, session, answeredBy, limit, cursor',
    )
  })
})
