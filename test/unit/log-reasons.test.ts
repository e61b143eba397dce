/**
 * Every answer explains itself in its request line (#13 §4): the reason for every non-2xx, every
 * violation counted, and what forced a status (a Prefer, a `__code`, a scenario), in text and JSON.
 */
import { describe, expect, it } from 'vitest'
import { createApp } from '../../src/index.js'
import { type RequestLine, formatRequestJson, formatRequestText } from '../../src/common/log.js'

async function linesOf(requests: Array<{ path: string; init: RequestInit }>, options: Record<string, unknown> = {}) {
  const lines: RequestLine[] = []
  const app = await createApp({
    seed: 1,
    ...options,
    logger: { info() {}, warn() {}, error() {}, request: (line: RequestLine) => lines.push(line) },
  })
  for (const { path, init } of requests) await (await app.request(path, init)).text()
  return lines
}

const post = (body: string, headers: Record<string, string> = {}) => ({
  path: '/plants',
  init: {
    method: 'POST',
    headers: { authorization: 'Bearer t', 'content-type': 'application/json', ...headers },
    body,
  },
})

describe('request lines say why (#13)', () => {
  it('counts the violations of a 400 after naming the first', async () => {
    const [line] = await linesOf([post('{"id": "x", "name": 5}')])
    expect(formatRequestText(line!)).toMatch(/ 400 .*: body\.\S+ must be .* \(\+1 more\)\n$/)
  })

  it('says a status was forced by Prefer: code=, or by __code=', async () => {
    const [byHeader, byQuery] = await linesOf([
      post('{"id": 1, "name": "Fern"}', { prefer: 'code=400' }),
      { ...post('{"id": 1, "name": "Fern"}'), path: '/plants?__code=400' },
    ])
    expect(formatRequestText(byHeader!)).toMatch(/ 400 .*: forced by Prefer: code=400\n$/)
    expect(formatRequestText(byQuery!)).toMatch(/ 400 .*: forced by __code=400\n$/)
    expect(JSON.parse(formatRequestJson(byHeader!)).forcedBy).toBe('Prefer: code=400')
  })

  it('says a status was chosen by Prefer: example= (or __example=), not that no 2xx is declared (#36 §3)', async () => {
    const lines = await linesOf([
      post('{"id": 1, "name": "Fern"}', { prefer: 'example=duplicate-id' }),
      { ...post('{"id": 1, "name": "Fern"}'), path: '/plants?__example=duplicate-id' },
    ])
    const [byHeader, byQuery] = lines
    expect(byHeader!.status).toBe(400)
    expect(formatRequestText(byHeader!)).toMatch(/ 400 .*: forced by Prefer: example=duplicate-id\n$/)
    expect(formatRequestText(byQuery!)).toMatch(/ 400 .*: forced by __example=duplicate-id\n$/)
    expect((byHeader as { reason?: string }).reason).toBe('forced by Prefer: example=duplicate-id')
  })

  it('says a status was forced by a scenario', async () => {
    const [line] = await linesOf([post('{"id": 1, "name": "Fern"}')], { scenario: 'error' })
    expect(formatRequestText(line!)).toMatch(/ 400 .*scenario=error: forced by scenario error\n$/)
  })

  it('says nothing more for a valid request answered as declared', async () => {
    const [line] = await linesOf([post('{"id": 1, "name": "Fern"}')])
    expect(formatRequestText(line!)).toMatch(/ 200 [\d.]+ ms scenario=default\n$/)
    expect(JSON.parse(formatRequestJson(line!)).forcedBy).toBeUndefined()
  })
})

describe('proxy mode says itself (#36 §9)', () => {
  it('a 504 line says the upstream did not answer in time', async () => {
    const { createServer } = await import('node:http')
    // An upstream on loopback that takes requests and never answers.
    const silent = createServer(() => {})
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const { port } = silent.address() as { port: number }
    try {
      const [line] = await linesOf([post('{"id": 1, "name": "Fern"}')], {
        proxy: `http://127.0.0.1:${port}`,
        proxyTimeoutMs: 200,
      })
      expect(line!.status).toBe(504)
      expect(formatRequestText(line!)).toMatch(/ 504 .*: .*(did not answer|time)/i)
    } finally {
      silent.closeAllConnections()
      silent.close()
    }
  })

  it('the start line names the upstream, without its credentials', async () => {
    const { startLine } = await import('../../src/command-line/report.js')
    const listening = { title: 'Plant Store 1.0.0', url: 'http://127.0.0.1:4010', operations: ['POST /plants'] }
    expect(startLine(listening, { proxy: 'https://ana:secret@api.example.test/v1' })).toBe(
      'Plant Store 1.0.0 mock listening on http://127.0.0.1:4010, proxying to https://api.example.test/v1 (POST /plants)',
    )
  })
})

describe('the start line past ten operations (#36 §6)', () => {
  it('counts them and says where they are listed; --verboseLevel debug lists them all', async () => {
    const { startLine } = await import('../../src/command-line/report.js')
    const operations = Array.from({ length: 1087 }, (_, i) => `GET /things/${i}`)
    const listening = { title: 'GitHub v3 REST API', url: 'http://127.0.0.1:4010', operations }
    expect(startLine(listening)).toBe(
      'GitHub v3 REST API mock listening on http://127.0.0.1:4010 (1,087 operations: http://127.0.0.1:4010/ lists them, and --verboseLevel debug here)',
    )
    expect(startLine(listening, { debug: true })).toContain('GET /things/1086)')
    expect(startLine({ ...listening, operations: operations.slice(0, 10) })).toContain('GET /things/9)')
  })
})
