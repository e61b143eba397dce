/**
 * Request controls and reported violations (#13) through `app.request()`: the shared table
 * (`test/support/control-cases.ts`), then what only the app shows: the request line handed to the
 * logger, the admin API's journal against `admin-openapi.yaml`, and a header cut to its bound.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { type MockApp, type RequestLine, createApp } from '../../src/index.js'
import { formatRequestText } from '../../src/common/log.js'
import { MAX_VIOLATIONS_HEADER } from '../../src/validation/violations-header.js'
import { createAdminOracle } from '../support/admin-oracle.js'
import { sendInProcess } from '../support/cases.js'
import {
  type ControlCase,
  caseKey,
  controlCases,
  expectControlCase,
  optionsOf,
  specOf,
} from '../support/control-cases.js'
import { silentLogger } from '../../src/common/log.js'

const apps = new Map<string, Promise<MockApp>>()

function appFor(testCase: ControlCase): Promise<MockApp> {
  const key = caseKey(testCase)
  let app = apps.get(key)
  if (!app) apps.set(key, (app = createApp({ ...optionsOf(testCase), logger: silentLogger })))
  return app
}

describe('request controls and reported violations in process (#13)', () => {
  it.each(controlCases.map((c) => [c.name, c] as const))('%s', async (_name, testCase) => {
    const app = await appFor(testCase)
    app.mock.clearRequests()
    const received = await sendInProcess(app, testCase.request)
    expectControlCase(testCase, received, app.mock.requests().at(-1))
  })
})

describe('what the log and the admin API tell of them (#13)', () => {
  const lines: RequestLine[] = []
  const logger = { ...silentLogger, request: (line: RequestLine) => void lines.push(line) }
  const controls = controlCases.find((c) => c.spec === 'controls')!
  const violations = controlCases.find((c) => c.spec === 'violations')!

  afterEach(() => {
    lines.length = 0
  })

  it('the request line of a violation answered past names it, with the 200', async () => {
    const app = await createApp({ spec: specOf(controls), validate: 'report', logger })
    await app.request('/items?limit=0')
    expect(lines).toHaveLength(1)
    expect(lines[0]!.violations).toEqual([{ path: 'query.limit', message: 'must be >= 1' }])
    expect(formatRequestText(lines[0]!)).toMatch(
      / 200 .*: request breaks the description: query\.limit must be >= 1\n$/,
    )
  })

  it('the request line of an answer that breaks its declaration names how', async () => {
    const app = await createApp({ spec: specOf(violations), logger })
    await app.request('/made-up-location', { method: 'POST' })
    expect(lines[0]!.responseViolations).toEqual([
      { path: 'header.location', message: 'must match pattern "^/things/[0-9]+$"' },
    ])
    expect(formatRequestText(lines[0]!)).toMatch(
      / 201 .*: response breaks the description: header\.location must match pattern/,
    )
  })

  it('GET /__mock/requests lists responseViolations as admin-openapi.yaml describes them', async () => {
    const app = await createApp({ spec: specOf(violations), validate: 'report', logger: silentLogger })
    await app.request('/unsatisfiable?limit=x')
    const response = await app.request('/__mock/requests')
    const text = await response.text()
    const oracle = await createAdminOracle()
    expect(
      oracle.problems({
        method: 'GET',
        path: '/__mock/requests',
        status: response.status,
        headers: response.headers,
        text,
      }),
    ).toEqual([])
    const [entry] = (JSON.parse(text) as { requests: Array<Record<string, unknown>> }).requests
    expect(entry).toMatchObject({
      valid: false,
      violations: [{ path: 'query.limit' }],
      responseViolations: [{ message: 'must be <= 1.5' }],
    })
  })

  it('X-Mock-Violations stays within its bound, and says how many it leaves out', async () => {
    const app = await createApp({ spec: specOf(controls), validate: 'report', logger: silentLogger })
    // Every key the open `flags` object takes breaks its schema: 200 violations, more than the header holds.
    const query = Array.from({ length: 200 }, (_, i) => `flag${i}=${'x'.repeat(20)}`).join('&')
    const response = await app.request(`/items?${query}`)
    expect(response.status).toBe(200)
    const header = response.headers.get('x-mock-violations')!
    expect(header.length).toBeLessThanOrEqual(MAX_VIOLATIONS_HEADER)
    const reported = JSON.parse(header) as Array<{ message: string }>
    expect(reported.at(-1)!.message).toMatch(/^\d+ more violations; the journal lists them all$/)
    expect(app.mock.requests().at(-1)!.violations.length).toBeGreaterThan(reported.length)
  })

  it('no control is looked for in a query without "__", and a query with "__" but no control is left alone', async () => {
    const app = await createApp({ spec: specOf(controls), logger: silentLogger })
    const plain = await app.request('/items/7?q=a__b')
    expect(await plain.json()).toEqual({ name: 'item 7', q: 'a__b' })
  })
})
