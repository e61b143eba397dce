/**
 * Proxy mode's streams (#31 §2) in process (`app.request()`, no socket of the mock's own): a real
 * upstream on loopback streams JSON Lines; each item is judged as it passes, and an upstream that
 * stops sending fails the body the client reads, or with `--errors` ends it with an error item.
 */
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { type AppOptions, type MockApp, createApp } from '../../src/index.js'
import { silentLogger } from '../../src/common/log.js'
import { createReceivers } from '../support/receivers.js'
import { createAdminOracle } from '../support/admin-oracle.js'

const spec = fileURLToPath(new URL('../descriptions/proxy/sequences.yaml', import.meta.url))
const receivers = createReceivers()
afterEach(() => receivers.closeAll())

/** An upstream that writes `body` as JSON Lines, and ends its answer only if `end`. */
async function proxying(body: string, end: boolean, options: AppOptions = {}): Promise<MockApp> {
  const upstream = await receivers.start((res) => {
    res.writeHead(200, { 'content-type': 'application/x-ndjson' }).write(body)
    if (end) res.end()
  })
  return createApp({ spec, proxy: upstream.origin, proxyTimeoutMs: 300, logger: silentLogger, ...options })
}

describe('a streamed answer in process (#31 §2)', () => {
  it('passes every item, and the journal names the broken one', async () => {
    const app = await proxying('{"n":1}\n{"n":[]}\n', true)
    const response = await app.request('/lines')
    expect(response.headers.get('content-type')).toBe('application/x-ndjson')
    expect(await response.text()).toBe('{"n":1}\n{"n":[]}\n')
    const [entry] = app.mock.requests()
    expect(entry!.response?.stream).toEqual({ items: 2, bytes: 17, ended: 'complete' })
    expect(entry!.responseViolations).toEqual([{ path: 'body[1].n', message: 'must be an integer' }])
    // The admin API lists the stream's record as admin-openapi.yaml describes it.
    const listed = await app.request('/__mock/requests')
    const text = await listed.text()
    const oracle = await createAdminOracle()
    const exchange = { method: 'GET', path: '/__mock/requests', status: listed.status, headers: listed.headers, text }
    expect(oracle.problems(exchange)).toEqual([])
  })

  it('an upstream that stops sending fails the body; with --errors, an error item ends it', async () => {
    const cut = await proxying('{"n":1}\n', false)
    await expect((await cut.request('/lines')).text()).rejects.toThrow()
    expect(cut.mock.requests()[0]!.response?.stream).toMatchObject({ items: 1, ended: 'upstream failed' })

    const refused = await proxying('{"n":1}\n', false, { errors: true })
    const [first, error, ...rest] = (await (await refused.request('/lines')).text()).split('\n')
    expect(first).toBe('{"n":1}')
    expect(JSON.parse(error!)).toEqual({
      error: 504,
      message: expect.stringContaining('stopped sending its answer for 300 ms (--proxy-timeout)'),
    })
    expect(rest).toEqual([''])
  })
})
