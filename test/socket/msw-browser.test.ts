/**
 * Packages a browser fetches on demand (#33), each a chunk of its own. `runtimes.test.ts` runs the
 * behaviour suite in Chromium; these look at when the page fetches json-schema-faker (at start-up for
 * `dynamic: true`, else before the first request that asks for generated bodies, and, for a static
 * body only it can make, on that request, which is refused), RE2 (for a description with patterns)
 * and the YAML parser (for a file the bundle could not write as JSON).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createApp } from '../../src/index.js'
import { silentLogger } from '../../src/common/log.js'
import { type BrowserMock, startInBrowser } from '../support/browser-runtime.js'
import { hasChromium, sayWhenSkipped } from '../support/chromium.js'

sayWhenSkipped('json-schema-faker loading in a browser')

const FAKER = 'json-schema-faker'
const RE2 = 're2js'
const YAML = 'yaml'
const START_TIMEOUT = 60_000
const running: BrowserMock[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((mock) => mock.close()))
})

async function start(options: Parameters<typeof startInBrowser>[0]): Promise<BrowserMock> {
  const mock = await startInBrowser(options)
  running.push(mock)
  return mock
}

function addPlant(mock: BrowserMock, headers: Record<string, string> = {}): Promise<Response> {
  return mock.request('/plants', {
    method: 'POST',
    headers: { authorization: 'Bearer t', 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ id: 1, name: 'Fern' }),
  })
}

describe.skipIf(!hasChromium)('json-schema-faker in Chromium, loaded on demand', () => {
  it(
    'is not fetched for fixtures, errors and the journal, and is fetched before the first Prefer: dynamic=true answer',
    async () => {
      const mock = await start({ tokens: ['t'] })
      expect((await addPlant(mock)).status).toBe(200)
      expect((await addPlant(mock, { authorization: '' })).status).toBe(401)
      expect((await mock.request('/__mock/requests')).status).toBe(200)
      expect(mock.fetchedPackages()).not.toContain(FAKER)
      const generated = await addPlant(mock, { prefer: 'dynamic=true' })
      expect(generated.status).toBe(200)
      expect(await generated.json()).toEqual({ name: expect.any(String), tag: expect.any(String) })
      expect(mock.fetchedPackages()).toContain(FAKER)
    },
    START_TIMEOUT,
  )

  it(
    'is fetched before the first answer under the dynamic scenario, switched to through the handle',
    async () => {
      const mock = await start({ tokens: ['t'] })
      await mock.steer((handle) => handle.useScenario('dynamic'))
      expect(mock.fetchedPackages()).not.toContain(FAKER)
      const generated = await addPlant(mock)
      expect(generated.status).toBe(200)
      expect(await generated.json()).not.toEqual({ name: 'Fern' })
      expect(mock.fetchedPackages()).toContain(FAKER)
    },
    START_TIMEOUT,
  )

  it(
    'is fetched at start-up under dynamic: true',
    async () => {
      const mock = await start({ tokens: ['t'], dynamic: true })
      expect(mock.fetchedPackages()).toContain(FAKER)
    },
    START_TIMEOUT,
  )

  it(
    'refuses a static body only it can make with a 500 saying it is loading, and serves the body once it has loaded',
    async () => {
      const mock = await start({ spec: 'test/descriptions/static-body-beyond-sampler.yaml' })
      const first = await mock.request('/readings')
      expect(first.status).toBe(500)
      expect(await first.json()).toEqual({ error: 500, message: expect.stringMatching(/json-schema-faker.*loading/) })
      let readings = first
      // The chunk comes from loopback: a few tries at most, each a round trip through the worker.
      for (let tries = 0; tries < 50 && readings.status === 500; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 100))
        readings = await mock.request('/readings')
      }
      expect(readings.status).toBe(200)
      expect(await readings.json()).toHaveLength(3000)
      expect(mock.fetchedPackages()).toContain(FAKER)
    },
    START_TIMEOUT,
  )
})

describe.skipIf(!hasChromium)('RE2 and the YAML parser in Chromium, loaded on demand', () => {
  it(
    'fetches neither for the Plant Store, whose bundle holds its YAML as JSON and which has no pattern',
    async () => {
      const mock = await start({ tokens: ['t'] })
      expect((await addPlant(mock)).status).toBe(200)
      expect((await addPlant(mock, { prefer: 'code=400' })).status).toBe(400)
      await mock.steer((handle) => handle.useScenario('error'))
      expect((await addPlant(mock)).status).not.toBe(200)
      expect(mock.fetchedPackages()).not.toContain(RE2)
      expect(mock.fetchedPackages()).not.toContain(YAML)
    },
    START_TIMEOUT,
  )

  it(
    "fetches RE2 at start-up for a description's patterns, which then run in linear time",
    async () => {
      // An example of this description backtracks exponentially on JavaScript's engine: start-up checks it.
      const mock = await start({ spec: 'test/descriptions/wild/patterns.yaml' })
      expect(mock.fetchedPackages()).toContain(RE2)
      const post = (code: Record<string, string>) =>
        mock.request('/codes', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(code),
        })
      // `\A` and `\z` are RE2's anchors, which JavaScript does not read.
      expect((await post({ ip: '10.0.0.1' })).status).toBe(204)
      expect((await post({ ip: '10.0.0.1 and more' })).status).toBe(422)
      expect((await post({ url: `http://www.example.com/${'a'.repeat(40)}!` })).status).toBe(422)
      expect(mock.fetchedPackages()).not.toContain(YAML)
    },
    START_TIMEOUT,
  )

  it(
    'fetches the YAML parser for a YAML file the bundle keeps as YAML (an integer beyond 2^53), and answers as Node does',
    async () => {
      const folder = await mkdtemp(join(tmpdir(), 'browser-yaml-'))
      try {
        const spec = join(folder, 'openapi.yaml')
        await writeFile(
          spec,
          [
            'openapi: 3.0.3',
            'info: {title: big ids, version: 1.0.0}',
            'paths:',
            '  /ids:',
            '    get:',
            '      responses:',
            "        '200':",
            '          description: an id',
            '          content:',
            '            application/json:',
            '              schema: {type: integer, format: int64}',
            '              example: 9007199254740993',
          ].join('\n'),
        )
        const mock = await start({ spec })
        expect(mock.fetchedPackages()).toContain(YAML)
        const answer = await mock.request('/ids')
        const onNode = await (await createApp({ spec, logger: silentLogger })).request('/ids')
        expect(answer.status).toBe(200)
        expect(await answer.text()).toBe(await onNode.text())
      } finally {
        await rm(folder, { recursive: true, force: true })
      }
    },
    START_TIMEOUT,
  )
})
