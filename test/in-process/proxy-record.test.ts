/**
 * Record and replay (#18): fixtures named by a request hash, as `--record` writes them, answer the
 * request they were recorded for when the mock starts with `--fixtures DIR`; any other request of the
 * operation gets the default fixture, the first answer recorded.
 */
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { nodePlatform } from '../../src/node/node-platform.js'
import { createEngine } from '../../src/engine/engine.js'
import { createApp } from '../../src/index.js'
import { silentLogger } from '../../src/common/log.js'
import { requestHash } from '../../src/proxy/request-hash.js'
import { requestOf } from '../support/builders.js'
import { removeTempDirs, tempDir } from '../support/temp-dirs.js'

const spec = fileURLToPath(new URL('../descriptions/recording.yaml', import.meta.url))
/** The description's apiKey query parameter: left out of every hash. */
const credentialQuery = new Set(['api_key'])
const auth = { authorization: 'Bearer t' }
const encode = (text: string) => new TextEncoder().encode(text)

afterEach(removeTempDirs)

describe('replaying recorded fixtures (#18)', () => {
  it('answers the request a fixture was recorded for with it, and any other with the default', async () => {
    const five = requestHash(
      requestOf({ path: '/plants', query: 'limit=5' }),
      undefined,
      credentialQuery,
      nodePlatform.crypto.sha256,
    )
    const fixtures = await tempDir('mock-replay-', {
      [`listPlants/200.${five}.json`]: [{ name: 'Five' }],
      [`listPlants/200.${five}.headers.json`]: { 'x-rate-limit': '5' },
      'listPlants/200.json': [{ name: 'First' }],
    })
    const app = await createApp({ spec, fixtures })
    const matching = await app.request('/plants?limit=5', { headers: auth })
    expect(matching.status).toBe(200)
    expect(await matching.json()).toEqual([{ name: 'Five' }])
    expect(matching.headers.get('x-rate-limit')).toBe('5')
    const other = await app.request('/plants?limit=6', { headers: auth })
    expect(await other.json()).toEqual([{ name: 'First' }])
  })

  it('matches whatever API key the query carries, and the query in any order', async () => {
    const hash = requestHash(
      requestOf({ path: '/plants', query: 'limit=5' }),
      undefined,
      credentialQuery,
      nodePlatform.crypto.sha256,
    )
    const fixtures = await tempDir('mock-replay-', {
      [`listPlants/200.${hash}.json`]: [{ name: 'Five' }],
      'listPlants/200.json': [],
    })
    const app = await createApp({ spec, fixtures })
    const answer = await app.request('/plants?api_key=another&limit=5')
    expect(await answer.json()).toEqual([{ name: 'Five' }])
  })

  it('tells requests apart by their body, and answers the status the fixture was recorded under', async () => {
    const post = requestOf({ method: 'POST', path: '/plants' })
    const fern = requestHash(post, encode('{"name":"Fern"}'), credentialQuery, nodePlatform.crypto.sha256)
    const fixtures = await tempDir('mock-replay-', {
      [`addPlant/2XX.${fern}.json`]: { name: 'Fern', tag: 'recorded' },
      'addPlant/2XX.json': { name: 'Default' },
    })
    const app = await createApp({ spec, fixtures })
    const send = (body: string) =>
      app.request('/plants', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body })
    const recorded = await send('{"name":"Fern"}')
    expect(recorded.status).toBe(200)
    expect(await recorded.json()).toEqual({ name: 'Fern', tag: 'recorded' })
    expect(await (await send('{"name":"Aloe"}')).json()).toEqual({ name: 'Default' })
  })

  it('answers a recorded error status with its fixture', async () => {
    const hash = requestHash(
      requestOf({ path: '/plants', query: 'limit=0' }),
      undefined,
      credentialQuery,
      nodePlatform.crypto.sha256,
    )
    const fixtures = await tempDir('mock-replay-', { [`listPlants/404.${hash}.json`]: { code: 404 } })
    const app = await createApp({ spec, fixtures })
    const answer = await app.request('/plants?limit=0', { headers: auth })
    expect(answer.status).toBe(404)
    expect(await answer.json()).toEqual({ code: 404 })
    expect((await app.request('/plants?limit=1', { headers: auth })).status).toBe(200)
  })

  it('lets Prefer pick another answer than the recording', async () => {
    const hash = requestHash(
      requestOf({ path: '/plants', query: 'limit=5' }),
      undefined,
      credentialQuery,
      nodePlatform.crypto.sha256,
    )
    const fixtures = await tempDir('mock-replay-', {
      [`listPlants/200.${hash}.json`]: [{ name: 'Five' }],
      'listPlants/200.json': [{ name: 'First' }],
      'listPlants/404.json': { code: 404 },
    })
    const app = await createApp({ spec, fixtures })
    const byCode = await app.request('/plants?limit=5', { headers: { ...auth, prefer: 'code=404' } })
    expect(byCode.status).toBe(404)
    const byName = await app.request('/plants?limit=5', { headers: { ...auth, prefer: 'example=default' } })
    expect(await byName.json()).toEqual([{ name: 'First' }])
  })

  it('starts from what the recorder wrote, and replays it', async () => {
    const dir = await tempDir('mock-record-')
    const empty = await tempDir('mock-no-fixtures-')
    const engine = await createEngine(
      { spec, fixtures: empty, proxy: 'http://127.0.0.1:9', record: dir },
      silentLogger,
      { platform: nodePlatform },
    )
    const recorder = engine.upstream!.recorder!
    const listPlants = engine.operations.find((o) => o.id === 'listPlants')!
    const answer = (name: string) => ({
      status: 200,
      headers: new Headers({ 'content-type': 'application/json', 'x-rate-limit': '3', 'set-cookie': 's=1' }),
      body: encode(JSON.stringify([{ name }])),
    })
    recorder.record(listPlants, requestOf({ path: '/plants', query: 'limit=1' }), undefined, answer('One'))
    recorder.record(listPlants, requestOf({ path: '/plants', query: 'limit=2' }), undefined, answer('Two'))
    await recorder.idle()
    const app = await createApp({ spec, fixtures: dir })
    const two = await app.request('/plants?limit=2', { headers: auth })
    expect(await two.json()).toEqual([{ name: 'Two' }])
    expect(two.headers.get('x-rate-limit')).toBe('3')
    expect(two.headers.get('set-cookie')).toBeNull()
    expect(await (await app.request('/plants?limit=9', { headers: auth })).json()).toEqual([{ name: 'One' }])
  })
})
