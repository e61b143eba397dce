/**
 * Templated fixtures over a real socket (#3 §2): under node:http the request headers sit in a plain
 * object, so a template naming `constructor` or `__proto__` must still read only header values.
 */
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type MockServer, startMockServer } from '../../src/index.js'
import { silentLogger } from '../../src/common/log.js'

const spec = fileURLToPath(new URL('../descriptions/template-fallback/openapi.yaml', import.meta.url))

describe('header templates over a socket', () => {
  let server: MockServer

  beforeAll(async () => {
    server = await startMockServer({ port: 0, spec, logger: silentLogger })
  })

  afterAll(async () => {
    await server.close()
  })

  async function echoHeaders(headers: Record<string, string> = {}): Promise<Record<string, unknown>> {
    const response = await fetch(`${server.url}/headers`, { headers, signal: AbortSignal.timeout(10_000) })
    expect(response.status).toBe(200)
    return (await response.json()) as Record<string, unknown>
  }

  it('echoes a header sent by the client', async () => {
    expect((await echoHeaders({ 'x-id': 'abc' })).id).toBe('abc')
  })

  it('reads no Object.prototype member as a header value (#3)', async () => {
    expect(await echoHeaders()).toEqual({ text: '[|||]' })
  })

  it('does not write native code or [object Object] into a string (#3)', async () => {
    const { text } = await echoHeaders({ 'x-id': 'abc' })
    expect(text).not.toMatch(/native code|\[object Object\]/)
  })
})
