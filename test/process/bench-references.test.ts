import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { cleanEnv, root, start, startedUrl, stopProcesses } from '../support/processes.js'

/**
 * The servers `npm run bench` measures the mock against (#34 §6): the Hono + Ajv reference, and the
 * mock's floor (its own server and body reader and writer without the pipeline, which reaches into
 * dist/). A change that broke either would leave the bench measuring an error page, or nothing.
 */
const REFERENCES = [
  { script: 'bench/hono-ajv-server.mjs', valid: { name: 'Monstera deliciosa', tag: 'houseplant' } },
  { script: 'bench/mock-floor-server.mjs', valid: { name: 'Fern' } },
]

afterAll(stopProcesses)

describe.each(REFERENCES)('$script', ({ script, valid }) => {
  it('answers a valid POST /plants 200 with its body, and a body that is not JSON 400', async () => {
    const server = start(
      process.execPath,
      [fileURLToPath(new URL(`../../${script}`, import.meta.url)), '--port', '0'],
      {
        cwd: root,
        env: cleanEnv(),
      },
    )
    const url = await startedUrl(server, 15_000)
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const post = (body: string) =>
      fetch(`${url}/plants`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer bench' },
        body,
        signal: AbortSignal.timeout(5_000),
      })
    const ok = await post('{"id":1,"name":"Fern"}')
    expect(ok.status).toBe(200)
    expect(ok.headers.get('content-type')).toMatch(/^application\/json/)
    expect(await ok.json()).toEqual(valid)
    const malformed = await post('{"id":1,')
    expect(malformed.status).toBe(400)
    await malformed.arrayBuffer()
  })
})
