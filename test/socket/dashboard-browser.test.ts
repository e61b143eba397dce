/**
 * The dashboard (`GET /__mock/`, #29) in a real browser: Debian's Chromium driven by playwright-core.
 * Each view is used as a developer would, a screenshot of each is kept under test-results/dashboard/,
 * and axe-core checks the main views for serious accessibility problems.
 */
import { mkdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type MockServer, startMockServer } from '../../src/index.js'
import { silentLogger } from '../../src/common/log.js'
import { ADMIN_ROUTES } from '../../src/admin/admin-routes.js'
import { hasChromium, launchChromium, sayWhenSkipped } from '../support/chromium.js'

sayWhenSkipped('dashboard browser tests')

const SHOTS = fileURLToPath(new URL('../../test-results/dashboard/', import.meta.url))
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')
const PLANT_HEADERS = { authorization: 'Bearer t', 'content-type': 'application/json' }
const TOKEN = 'admin-s3cret'
/** Whether this build has `GET /__mock/coverage` (#29 §1, built on another branch). */
const hasCoverage = ADMIN_ROUTES.some((route) => route.method === 'GET' && route.path === '/__mock/coverage')

/** `GET /__mock/coverage` as its contract (#29 §1) shapes it: a forced status, an undeclared one, an unmatched path. */
const COVERAGE = {
  since: '2026-01-01T12:00:00.000Z',
  summary: {
    operations: { exercised: 1, total: 1 },
    statuses: { exercised: 2, total: 2 },
    responses: { exercised: 2, total: 2 },
    requests: 12,
    unmatched: 1,
    invalid: 3,
  },
  operations: [
    {
      operation: 'addPlant',
      method: 'POST',
      path: '/plants',
      requests: 12,
      responses: [
        {
          status: '200',
          mediaType: 'application/json',
          answered: 8,
          forced: 0,
          valid: 8,
          invalid: 0,
          chosenBy: { plain: 8 },
        },
        {
          status: '400',
          mediaType: 'application/json',
          answered: 2,
          forced: 2,
          valid: 2,
          invalid: 0,
          chosenBy: { prefer: 2 },
        },
      ],
      undeclared: [{ status: 401, answered: 2 }],
    },
  ],
  unmatched: [{ method: 'GET', path: '/<img src=x onerror="window.__pwned=1">', count: 1, nearest: 'POST /plants' }],
}

const servers: MockServer[] = []
async function started(options: Parameters<typeof startMockServer>[0] = {}): Promise<MockServer> {
  const server = await startMockServer({ port: 0, logger: silentLogger, ...options })
  servers.push(server)
  return server
}

const send = (server: MockServer, path: string, init: RequestInit = {}) =>
  fetch(server.url + path, init).then(async (r) => ({ status: r.status, body: await r.text() }))
const addPlant = (server: MockServer, name: string, headers: Record<string, string> = {}) =>
  send(server, '/plants', {
    method: 'POST',
    headers: { ...PLANT_HEADERS, ...headers },
    body: JSON.stringify({ id: 1, name }),
  })
const admin = async (server: MockServer, path: string, init: RequestInit = {}) =>
  JSON.parse((await send(server, `/__mock${path}`, init)).body)

describe('the dashboard page', () => {
  afterAll(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()))
  })

  it('is three answers (page, script, style) under a strict CSP with nosniff, 150 KB at most in all', async () => {
    const server = await started()
    let total = 0
    for (const [path, type] of [
      ['/__mock/', 'text/html'],
      ['/__mock', 'text/html'],
      ['/__mock/dashboard/dashboard.js', 'text/javascript'],
      ['/__mock/dashboard/dashboard.css', 'text/css'],
    ] as const) {
      const response = await fetch(server.url + path)
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toContain(type)
      expect(response.headers.get('content-security-policy')).toBe(
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
      )
      expect(response.headers.get('x-content-type-options')).toBe('nosniff')
      if (path !== '/__mock') total += (await response.arrayBuffer()).byteLength
    }
    expect(total).toBeLessThan(150 * 1024)
    expect((await admin(server, '/requests')).requests).toEqual([])
  })

  it('is served without the admin token, and answers 404 with --no-admin', async () => {
    const guarded = await started({ adminToken: TOKEN })
    expect((await send(guarded, '/__mock/')).status).toBe(200)
    expect((await send(guarded, '/__mock/requests')).status).toBe(401)
    const off = await started({ admin: false })
    expect((await send(off, '/__mock/')).status).toBe(404)
  })

  it('keeps the Host check of the admin API', async () => {
    const server = await started()
    const { request } = await import('node:http')
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${server.url}/__mock/`, { headers: { host: 'evil.example' } }, (res) => {
        res.resume()
        resolve(res.statusCode!)
      })
      req.on('error', reject)
      req.end()
    })
    expect(status).toBe(403)
  })
})

describe.skipIf(!hasChromium)('the dashboard in Chromium', () => {
  let browser: Browser
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true })
    browser = await launchChromium()
  }, 40_000)
  afterAll(async () => {
    await browser?.close()
    await Promise.all(servers.splice(0).map((server) => server.close()))
  })

  /** The page, with every script error and CSP report kept: a test fails on any. */
  async function open(server: MockServer, view = 'journal'): Promise<Page & { problems: string[] }> {
    const context = await browser.newContext({ viewport: { width: 1100, height: 700 } })
    const page = (await context.newPage()) as Page & { problems: string[] }
    page.problems = []
    page.on('pageerror', (error) => page.problems.push(error.message))
    page.on('console', (message) => {
      if (message.type() === 'error' && !/401|Unauthorized/.test(message.text())) page.problems.push(message.text())
    })
    page.setDefaultTimeout(10_000)
    await page.goto(`${server.url}/__mock/#${view}`)
    return page
  }

  async function live(page: Page): Promise<void> {
    await page.locator('#stream-state', { hasText: 'Journal: live' }).waitFor()
  }

  async function shot(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: `${SHOTS}${name}.png` })
  }

  /** axe-core's serious and critical findings on the page as it is: none expected. */
  async function seriousViolations(page: Page): Promise<string[]> {
    await page.evaluate(AXE)
    const found = await page.evaluate<Array<{ id: string; impact: string; nodes: number }>>(
      'axe.run().then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length })))',
    )
    return found.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.nodes})`)
  }

  it('shows a new request in the live journal without a reload, newest first, and opens it', async () => {
    const server = await started()
    const page = await open(server)
    await live(page)
    await addPlant(server, 'Fern')
    await send(server, '/nowhere')
    const rows = page.locator('#journal-list > li')
    await rows.filter({ hasText: '/nowhere' }).waitFor()
    expect(await rows.count()).toBe(2)
    await expect.poll(() => rows.first().textContent()).toContain('/nowhere')
    await rows.filter({ hasText: 'addPlant' }).locator('summary').click()
    const opened = rows.filter({ hasText: 'addPlant' })
    await opened.locator('pre', { hasText: '"Fern"' }).first().waitFor()
    expect(await opened.textContent()).toContain('Response 200')
    await page.selectOption('#filter-valid', 'false')
    await expect.poll(() => rows.count()).toBe(1)
    await page.selectOption('#filter-valid', '')
    await page.fill('#filter-status', '2xx')
    await expect.poll(() => rows.count()).toBe(1)
    expect(await rows.first().textContent()).toContain('addPlant')
    await shot(page, 'journal')
    expect(await seriousViolations(page)).toEqual([])
    expect(page.problems).toEqual([])
  })

  it('shows markup sent in a request as text: no element is made and no script runs', async () => {
    const server = await started()
    const page = await open(server)
    await live(page)
    const markup = '<img src=x onerror="window.__pwned=1">'
    await addPlant(server, markup, { 'x-note': '<script>window.__pwned=2</script>' })
    const row = page.locator('#journal-list > li').first()
    await row.locator('summary').click()
    await row.locator('pre', { hasText: 'onerror' }).first().waitFor()
    expect(await row.textContent()).toContain(markup.replace(/"/g, '\\"'))
    expect(await row.textContent()).toContain('<script>window.__pwned=2</script>')
    expect(await page.locator('#journal-list img, #journal-list script').count()).toBe(0)
    expect(await page.evaluate('window.__pwned')).toBeUndefined()
    expect(page.problems).toEqual([])
  })

  it('reads a journal of 1,000 entries, putting the newest 200 in the page', async () => {
    const server = await started()
    for (let batch = 0; batch < 50; batch++)
      await Promise.all(Array.from({ length: 20 }, (_, n) => send(server, `/nowhere/${batch * 20 + n}`)))
    const page = await open(server)
    await page.locator('#journal-count', { hasText: 'of 1000 matching' }).waitFor()
    expect(await page.locator('#journal-list > li').count()).toBe(200)
    expect(await page.locator('#journal-list > li').first().textContent()).toContain('/nowhere/999')
    expect(page.problems).toEqual([])
  })

  it('switches the scenario, for every client or for one session', async () => {
    const server = await started()
    const page = await open(server, 'scenarios')
    await page.locator('#scenario-name option[value="duplicate-plant"]').waitFor({ state: 'attached' })
    await page.selectOption('#scenario-name', 'duplicate-plant')
    await page.getByRole('button', { name: 'Switch' }).click()
    await page.locator('#scenario-active', { hasText: 'duplicate-plant' }).waitFor()
    expect((await admin(server, '/scenario')).active).toBe('duplicate-plant')
    await page.fill('#scenario-session', 'worker-1')
    await page.getByRole('button', { name: 'Show' }).click()
    await page.locator('#scenario-active', { hasText: 'session worker-1' }).waitFor()
    await page.selectOption('#scenario-name', 'error')
    await page.getByRole('button', { name: 'Switch' }).click()
    await page.locator('#scenario-active', { hasText: 'session worker-1: error' }).waitFor()
    expect((await admin(server, '/scenario', { headers: { 'x-mock-session': 'worker-1' } })).active).toBe('error')
    expect((await admin(server, '/scenario')).active).toBe('duplicate-plant')
    await shot(page, 'scenarios')
    expect(await seriousViolations(page)).toEqual([])
    expect(page.problems).toEqual([])
  })

  it('adds a stub from its JSON, shows its hits, and removes it', async () => {
    const server = await started()
    const page = await open(server, 'stubs')
    await page.fill('#stub-json', '{"operation": "addPlant", "status": 400}')
    await page.getByRole('button', { name: 'Add stub' }).click()
    await page.locator('#stub-rows tr', { hasText: 'addPlant' }).waitFor()
    expect((await admin(server, '/stubs')).stubs).toMatchObject([{ id: 1, operation: 'addPlant', hits: 0 }])
    expect((await addPlant(server, 'Fern')).status).toBe(400)
    await page.getByRole('button', { name: 'Refresh' }).click()
    await expect.poll(() => page.locator('#stub-rows td:nth-child(4)').textContent()).toBe('1')
    await shot(page, 'stubs')
    expect(await seriousViolations(page)).toEqual([])
    await page.getByRole('button', { name: 'Remove stub 1' }).click()
    await expect.poll(() => page.locator('#stub-rows tr').count()).toBe(0)
    expect((await admin(server, '/stubs')).stubs).toEqual([])
    expect(page.problems).toEqual([])
  })

  it('shows the stateful records of each resource and empties one', async () => {
    const server = await started({ stateful: true })
    expect((await addPlant(server, 'Fern')).status).toBe(200)
    const page = await open(server, 'state')
    const plants = page.getByRole('region', { name: 'Resource plants' })
    await plants.locator('textarea', { hasText: 'Fern' }).waitFor()
    await shot(page, 'state')
    expect(await seriousViolations(page)).toEqual([])
    await page.getByRole('button', { name: 'Empty plants' }).click()
    await page.locator('h3', { hasText: 'plants (0)' }).waitFor()
    expect((await admin(server, '/state')).resources.plants).toEqual([])
    // The Plant Store has no seed file: back to its seed is back to none, after a record is added again.
    expect((await addPlant(server, 'Ivy')).status).toBe(200)
    await page.click('#state-refresh')
    await page.locator('h3', { hasText: 'plants (1)' }).waitFor()
    await page.getByRole('button', { name: 'Reset plants to its seed' }).click()
    await page.locator('h3', { hasText: 'plants (0)' }).waitFor()
    expect((await admin(server, '/state')).resources.plants).toEqual([])
    expect(page.problems).toEqual([])
  })

  it('shows the deliveries and sends a webhook from its form, saying why one is refused', async () => {
    const server = await started()
    const page = await open(server, 'deliveries')
    await page.locator('#delivery-count', { hasText: '0 deliveries' }).waitFor()
    await page.fill('#webhook-name', '/no/such/webhook')
    await page.getByRole('button', { name: 'Send webhook' }).click()
    await page.locator('#message.error').waitFor()
    expect(await page.locator('#message').textContent()).toMatch(/webhook/i)
    await shot(page, 'deliveries')
    expect(await seriousViolations(page)).toEqual([])
  })

  it('draws the coverage matrix of GET /__mock/coverage as its contract shapes it: counts, forced marks, unmatched paths as text', async () => {
    const server = await started()
    const context = await browser.newContext({ viewport: { width: 1100, height: 700 } })
    const page = await context.newPage()
    // The answer as the contract of #29 §1 gives it, whether or not this build serves the route.
    await page.route('**/__mock/coverage', (route) => route.fulfill({ json: COVERAGE }))
    await page.goto(`${server.url}/__mock/#coverage`)
    const row = page.locator('.matrix tbody tr', { hasText: 'addPlant' })
    await row.waitFor()
    expect(await page.locator('.matrix thead th').allTextContents()).toEqual([
      'Operation',
      '200',
      '400',
      'Undeclared answers',
    ])
    expect(await row.locator('td.s2xx').textContent()).toBe('8')
    expect(await row.locator('td.s4xx').textContent()).toContain('2*')
    expect(await row.textContent()).toContain('401 ×2')
    expect(await page.locator('#coverage-summary').textContent()).toContain('statuses: 2 of 2 (100 %)')
    expect(await page.locator('#view-coverage').textContent()).toContain('<img src=x onerror=')
    expect(await page.evaluate('window.__pwned')).toBeUndefined()
    await shot(page, 'coverage')
    expect(await seriousViolations(page)).toEqual([])
  })

  // Needs GET /__mock/coverage (#29 §1): skipped in a build without it.
  it.skipIf(!hasCoverage)('draws the coverage of the requests sent, read from the mock itself', async () => {
    const server = await started()
    await addPlant(server, 'Fern')
    await addPlant(server, 'Fern', { prefer: 'code=400' })
    const page = await open(server, 'coverage')
    const row = page.locator('.matrix tbody tr', { hasText: 'addPlant' })
    await row.waitFor()
    expect(await row.locator('td.s2xx').textContent()).toBe('1')
    expect(await row.locator('td.s4xx').textContent()).toContain('1*')
    // The fixtures served, and those never served marked as a status never answered is.
    const bodies = page.locator('table', { has: page.locator('caption', { hasText: 'Fixtures and examples' }) })
    expect(await bodies.locator('tbody tr').allTextContents()).toEqual([
      'addPlant200fixture default1',
      'addPlant200fixture monstera0',
      'addPlant400fixture duplicate-id0',
      'addPlant400fixture default1',
    ])
    expect(await bodies.locator('tr.never').count()).toBe(2)
    expect(await page.locator('caption', { hasText: 'Stubs and scenario rules' }).count()).toBe(1)
    expect(await seriousViolations(page)).toEqual([])
    await shot(page, 'coverage-live')
    expect(page.problems).toEqual([])
  })

  it('asks for the admin token once, keeps it in sessionStorage and sends it with every call', async () => {
    const server = await started({ adminToken: TOKEN })
    const page = await open(server)
    await page.locator('#token').waitFor()
    await shot(page, 'token')
    expect(await seriousViolations(page)).toEqual([])
    await page.locator('#token').fill(TOKEN)
    await page.getByRole('button', { name: 'Use token' }).click()
    await live(page)
    expect(await page.evaluate('Object.values(sessionStorage)')).toEqual([TOKEN])
    await addPlant(server, 'Fern')
    await page.locator('#journal-list > li', { hasText: 'addPlant' }).waitFor()
    await page.reload()
    await live(page)
    expect(await page.locator('#token').isVisible()).toBe(false)
  })

  it('works at /__mock without the slash too: its links are relative, for a mock under a prefix (#33)', async () => {
    const server = await started()
    const context = await browser.newContext()
    const page = await context.newPage()
    const problems: string[] = []
    page.on('pageerror', (error) => problems.push(error.message))
    page.setDefaultTimeout(10_000)
    await page.goto(`${server.url}/__mock`)
    await live(page)
    await addPlant(server, 'Fern')
    await page.locator('#journal-list > li', { hasText: 'addPlant' }).waitFor()
    expect(problems).toEqual([])
    await context.close()
  })

  it('is used with the keyboard alone, and has a dark theme that passes the same checks', async () => {
    const server = await started()
    const page = await open(server)
    await live(page)
    await page.focus('#show-journal')
    for (let n = 0; n < 3; n++) await page.keyboard.press('Tab')
    expect(await page.evaluate('document.activeElement.id')).toBe('show-stubs')
    await page.keyboard.press('Enter')
    await page.locator('#view-stubs').waitFor()
    expect(await page.locator('#view-journal').isVisible()).toBe(false)
    await page.getByRole('button', { name: /theme/ }).click()
    expect(await page.evaluate('document.documentElement.dataset.theme')).toMatch(/dark|light/)
    await page.evaluate("document.documentElement.dataset.theme = 'dark'")
    await shot(page, 'stubs-dark')
    expect(await seriousViolations(page)).toEqual([])
    expect(page.problems).toEqual([])
  })
})
