import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
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
