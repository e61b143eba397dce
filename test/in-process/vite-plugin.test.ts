/**
 * `plant-store-mock/vite` (#33 §2) on a real Vite dev server, started in this process on a free
 * loopback port: the mock answers under the base on Vite's own port, everything else is Vite's, the
 * admin API is under the base too, an edit of the description is served with the scenario kept, and
 * closing Vite closes the mock.
 */
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import { type ViteDevServer, createServer } from 'vite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mockPlugin } from '../../src/vite.js'
import { expectErrorBody } from '../support/cases.js'
import { removeTempDirs, tempDir } from '../support/temp-dirs.js'

const root = new URL('../../', import.meta.url).pathname
const PAGE = '<!doctype html><html><body><h1>plant shop page</h1></body></html>'
/** Debian's Chromium (.ci/run installs it), as the dashboard's own browser tests use it. */
const CHROMIUM = '/usr/bin/chromium'
const PLANT_HEADERS = { authorization: 'Bearer t', 'content-type': 'application/json' }

let dir: string
let server: ViteDevServer
let origin: string
const logged: string[] = []

beforeAll(async () => {
  dir = await tempDir('mock-vite-', { 'index.html': PAGE })
  cpSync(join(root, 'openapi.yaml'), join(dir, 'openapi.yaml'))
  cpSync(join(root, 'fixtures'), join(dir, 'fixtures'), { recursive: true })
  const logger = {
    info: (line: string) => void logged.push(line),
    warn() {},
    error: (line: string) => void logged.push(line),
  }
  server = await createServer({
    root: dir,
    configFile: false,
    logLevel: 'silent',
    cacheDir: join(dir, '.vite'),
    server: { host: '127.0.0.1', port: 0, strictPort: false },
    // `spec` is relative: it is read from Vite's root, the temporary folder.
    plugins: [mockPlugin({ spec: 'openapi.yaml', base: '/api', logger })],
  })
  await server.listen()
  const address = server.httpServer!.address()
  origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
})

afterAll(async () => {
  await server?.close()
  await removeTempDirs()
})

/** What the `duplicate-plant` scenario answers to POST /plants (fixtures/addPlant/400.duplicate-id.json). */
const DUPLICATE = {
  status: 400,
  body: JSON.parse(readFileSync(join(root, 'fixtures/addPlant/400.duplicate-id.json'), 'utf8')) as unknown,
}

const answerOf = async (response: Promise<Response>) => {
  const answer = await response
  return { status: answer.status, body: (await answer.json()) as unknown }
}

const post = (path: string, body: string, headers: Record<string, string> = PLANT_HEADERS) =>
  fetch(origin + path, { method: 'POST', headers, body })

describe('mockPlugin on a Vite dev server (#33)', () => {
  it('answers POST /api/plants on Vite’s port: 200 for a valid plant, 400 and 401 Error bodies', async () => {
    const valid = await post('/api/plants', '{"id":1,"name":"Fern"}')
    expect(valid.status).toBe(200)
    expect(await valid.json()).toEqual({ name: 'Fern' })

    const invalid = await post('/api/plants', '{"id":"one","name":5}')
    expect(invalid.status).toBe(400)
    expectErrorBody((await invalid.json()) as Record<string, unknown>, 400)

    const noToken = await post('/api/plants', '{"id":1,"name":"Fern"}', { 'content-type': 'application/json' })
    expect(noToken.status).toBe(401)
    expectErrorBody((await noToken.json()) as Record<string, unknown>, 401)
  })

  it('leaves every other path to Vite: its page, and a path that only starts like the base', async () => {
    for (const path of ['/', '/index.html', '/apiary']) {
      const response = await fetch(origin + path)
      expect(response.status, path).toBe(200)
      const html = await response.text()
      expect(html, path).toContain('plant shop page')
      // Vite's dev server put its client in: the page came from Vite, not the mock.
      expect(html, path).toContain('/@vite/client')
    }
    // The mock's own 404 for a path under the base that the description lacks.
    const missing = await fetch(`${origin}/api/nowhere`)
    expect(missing.status).toBe(404)
    expectErrorBody((await missing.json()) as Record<string, unknown>, 404)
  })

  it('serves the admin API under the base: a scenario switched there holds for the next request', async () => {
    const switched = await fetch(`${origin}/api/__mock/scenario`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: '{"name":"duplicate-plant"}',
    })
    expect(switched.status).toBe(200)
    expect(await answerOf(post('/api/plants', '{"id":1,"name":"Fern"}'))).toEqual(DUPLICATE)
    const journal = (await (await fetch(`${origin}/api/__mock/requests`)).json()) as {
      requests: { path: string }[]
    }
    expect(journal.requests.length).toBeGreaterThanOrEqual(5)
    // The mock saw the path without the base.
    expect(journal.requests.every((entry) => entry.path.startsWith('/') && !entry.path.startsWith('/api'))).toBe(true)
  })

  it('serves the dashboard under the base: its page, its style and script, and the live journal in Chromium', async () => {
    for (const page of ['/api/__mock/', '/api/__mock']) {
      const response = await fetch(origin + page)
      expect(response.status, page).toBe(200)
      const html = await response.text()
      // Each link the page names, resolved as a browser resolves it, is under the base.
      for (const [, link] of html.matchAll(/(?:href|src)="([^"]+\.(?:css|js))"/g)) {
        const asset = new URL(link!, origin + page)
        expect(asset.pathname, page).toMatch(/^\/api\/__mock\/dashboard\//)
        expect((await fetch(asset)).status, asset.pathname).toBe(200)
      }
    }
    if (!existsSync(CHROMIUM)) return console.log(`the dashboard in a browser skipped: no Chromium at ${CHROMIUM}`)
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox'],
      timeout: 30_000,
    })
    try {
      const page = await browser.newPage()
      const problems: string[] = []
      page.on('pageerror', (error) => problems.push(error.message))
      page.setDefaultTimeout(10_000)
      await page.goto(`${origin}/api/__mock/`)
      await page.locator('#stream-state', { hasText: 'Journal: live' }).waitFor()
      await post('/api/plants', '{"id":7,"name":"Basil"}')
      await page.locator('#journal-list > li', { hasText: 'addPlant' }).first().waitFor()
      expect(problems).toEqual([])
    } finally {
      await browser.close()
    }
  }, 45_000)

  it('serves an operation added to the description after the edit, the scenario still in force', async () => {
    expect((await fetch(`${origin}/api/health`)).status).toBe(404)
    const spec = readFileSync(join(dir, 'openapi.yaml'), 'utf8').replace(
      'paths:\n',
      'paths:\n  /health:\n    get:\n      operationId: health\n      security: []\n      responses:\n        "204":\n          description: fine\n',
    )
    writeFileSync(join(dir, 'openapi.yaml'), spec)
    await expect
      .poll(async () => (await fetch(`${origin}/api/health`)).status, { timeout: 5_000, interval: 100 })
      .toBe(204)
    expect(logged.some((line) => line.includes('reloaded') && line.includes('openapi.yaml'))).toBe(true)
    expect(await answerOf(post('/api/plants', '{"id":1,"name":"Fern"}'))).toEqual(DUPLICATE)
    const scenario = (await (await fetch(`${origin}/api/__mock/scenario`)).json()) as { active: string }
    expect(scenario.active).toBe('duplicate-plant')
  })

  it('closes the mock with Vite: an edit after the close reloads nothing', async () => {
    await server.close()
    const before = logged.length
    writeFileSync(
      join(dir, 'openapi.yaml'),
      readFileSync(join(dir, 'openapi.yaml'), 'utf8') + '\n# edited after close\n',
    )
    // The watcher waits 150 ms for edits to settle; a watcher left open would have reloaded by now.
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    expect(logged.slice(before)).toEqual([])
  })
})
