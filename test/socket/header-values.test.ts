import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { type MockServer, startMockServer } from '../../src/index.js'
import { silentLogger } from '../../src/common/log.js'

/** Over a real socket, where Node's header writer threw on a challenge naming an API key "ключ" (#12). */
describe('header values made from the description, over a socket (#12)', () => {
  let mock: MockServer
  beforeAll(async () => {
    const spec = fileURLToPath(new URL('../descriptions/wild/header-values.yaml', import.meta.url))
    mock = await startMockServer({ spec, port: 0, logger: silentLogger })
  })
  afterAll(() => mock.close())

  it('answers 401 with a challenge Node can write, not 500 text/plain', async () => {
    const res = await fetch(`${mock.url}/by-query`, { signal: AbortSignal.timeout(5000) })
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toBe(
      'ApiKey realm="plant-store-mock", in="query", name="%D0%BA%D0%BB%D1%8E%D1%87"',
    )
    expect(res.headers.get('content-type')).toBe('application/json')
  })
})

/**
 * Over a real socket, where Node's header check throws: a media type named with a character beyond
 * Latin-1 made every answer 500 "Invalid character in header content", with a stack on stderr (#34).
 */
describe('header values HTTP cannot carry, from the description, over a socket (#34)', () => {
  let mock: MockServer
  const warnings: string[] = []
  const printed: unknown[] = []
  beforeAll(async () => {
    const spec = fileURLToPath(new URL('../descriptions/wild/unsendable-header-values.yaml', import.meta.url))
    // @hono/node-server prints what Node's writer throws with console.error.
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void printed.push(args))
    const logger = { ...silentLogger, warn: (message: string) => void warnings.push(message) }
    mock = await startMockServer({ spec, port: 0, logger })
  })
  afterAll(async () => {
    await mock.close()
    vi.restoreAllMocks()
  })

  it('answers with the media type percent-encoded and the header examples made sendable, warned once each', async () => {
    for (const path of ['/notes', '/more-notes', '/notes']) {
      const res = await fetch(`${mock.url}${path}`, { signal: AbortSignal.timeout(5000) })
      expect(res.status, await res.clone().text()).toBe(200)
      expect(res.headers.get('content-type')).toBe('application/vnd.plant%E2%82%AC+json')
      expect(JSON.parse(await res.text())).toHaveProperty('note')
    }
    const res = await fetch(`${mock.url}/notes`, { signal: AbortSignal.timeout(5000) })
    expect(res.headers.get('x-note')).toBe('Farn %E2%80%93 gr%C3%BCn %F0%9F%8C%BF')
    expect(res.headers.get('x-bell')).toBe('ringring')
    expect(warnings.filter((w) => w.includes('media type'))).toHaveLength(1)
    expect(warnings).toHaveLength(3)
    expect(printed).toEqual([])
  })

  it('refuses a stub header that HTTP cannot carry, instead of answering 500 with it', async () => {
    const res = await fetch(`${mock.url}/__mock/stubs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ operation: 'listNotes', status: 200, headers: { 'x-note': '€' } }),
      signal: AbortSignal.timeout(5000),
    })
    expect(res.status).toBe(400)
    expect(((await res.json()) as { message: string }).message).toContain('beyond Latin-1')
    expect((await fetch(`${mock.url}/notes`, { signal: AbortSignal.timeout(5000) })).status).toBe(200)
    expect(printed).toEqual([])
  })
})
