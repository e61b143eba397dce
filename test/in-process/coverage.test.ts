/**
 * Consumer coverage (#29) through app.request(): what the Plant Store's requests exercised, counted by
 * declared status and media type, forced or not, by what chose the answer; sessions, reset, the
 * admin route against admin-openapi.yaml, and a description from the wild whose totals are counted
 * here from its own YAML.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parse } from 'yaml'
import { XMLParser } from 'fast-xml-parser'
import { beforeAll, describe, expect, it } from 'vitest'
import { type CoverageReport, type MockApp, createApp } from '../../src/index.js'
import { silentLogger } from '../../src/common/log.js'
import { renderCoverageFiles } from '../../src/coverage/render-reports.js'
import { type AdminOracle, createAdminOracle } from '../support/admin-oracle.js'
import { answerWith, createReceivers } from '../support/receivers.js'

const AUTH = { authorization: 'Bearer t', 'content-type': 'application/json' }
const FERN = '{"id":1,"name":"Fern"}'

let oracle: AdminOracle
beforeAll(async () => {
  oracle = await createAdminOracle()
})

async function plantStore(): Promise<MockApp> {
  return createApp({ logger: silentLogger })
}

function post(app: MockApp, headers: Record<string, string>, body = FERN) {
  return app.request('/plants', { method: 'POST', headers, body })
}

/** GET /__mock/coverage, checked against admin-openapi.yaml. */
async function coverageOver(app: MockApp, query = ''): Promise<CoverageReport> {
  const path = `/__mock/coverage${query}`
  const response = await app.request(path)
  const text = await response.text()
  expect(oracle.problems({ method: 'GET', path, status: response.status, headers: response.headers, text })).toEqual([])
  return JSON.parse(text) as CoverageReport
}

const row = (report: CoverageReport, status: string) =>
  report.operations.find((o) => o.operation === 'addPlant')!.responses.find((r) => r.status === status)!

describe('coverage of the Plant Store (#29)', () => {
  it('lists every declared status before any request, none exercised', async () => {
    const report = (await plantStore()).mock.coverage()
    expect(report.summary).toMatchObject({
      operations: { exercised: 0, total: 1 },
      statuses: { exercised: 0, total: 2 },
      responses: { exercised: 0, total: 2 },
      requests: 0,
    })
    expect(report.operations[0]!.responses.map((r) => [r.status, r.mediaType, r.answered])).toEqual([
      ['200', 'application/json', 0],
      ['400', 'application/json', 0],
    ])
  })

  it('counts answers by status, forced marks, validity, what chose them, undeclared statuses and misses', async () => {
    const app = await plantStore()
    expect((await post(app, AUTH)).status).toBe(200)
    expect((await post(app, { ...AUTH, prefer: 'code=400' })).status).toBe(400)
    expect((await post(app, AUTH, '{"name":42}')).status).toBe(400)
    expect((await post(app, { 'content-type': 'application/json' })).status).toBe(401)
    app.mock.stub({ operation: 'addPlant', status: 400, times: 1 })
    expect((await post(app, AUTH)).status).toBe(400)
    expect((await app.request('/plantz')).status).toBe(404)

    const report = await coverageOver(app)
    expect(report).toEqual(app.mock.coverage())
    expect(row(report, '200')).toMatchObject({ answered: 1, forced: 0, valid: 1, invalid: 0 })
    expect(row(report, '200').chosenBy.plain).toBe(1)
    // Forced: a status the request did not earn, chosen by Prefer or by the stub.
    expect(row(report, '400')).toMatchObject({ answered: 3, forced: 2, valid: 2, invalid: 1 })
    expect(row(report, '400').chosenBy).toMatchObject({ prefer: 1, stub: 1, plain: 1 })
    expect(report.operations[0]!.undeclared).toEqual([{ status: 401, answered: 1 }])
    expect(report.operations[0]!.requests).toBe(5)
    expect(report.summary).toMatchObject({
      operations: { exercised: 1, total: 1 },
      statuses: { exercised: 2, total: 2 },
      requests: 6,
      unmatched: 1,
    })
    expect(report.unmatched).toEqual([{ method: 'GET', path: '/plantz', count: 1, nearest: ['/plants'] }])
  })

  it('counts a scenario’s forced status as exercised, marked forced', async () => {
    const app = await plantStore()
    app.mock.useScenario('duplicate-plant')
    expect((await post(app, AUTH)).status).toBe(400)
    expect(row(app.mock.coverage(), '400')).toMatchObject({ answered: 1, forced: 1 })
    expect(row(app.mock.coverage(), '400').chosenBy.scenario).toBe(1)
  })

  it('keeps each session apart, and all sessions together', async () => {
    const app = await plantStore()
    await post(app, { ...AUTH, 'x-mock-session': 'a' })
    await post(app, { ...AUTH, 'x-mock-session': 'b', prefer: 'code=400' })
    expect(row(await coverageOver(app, '?session=a'), '400').answered).toBe(0)
    expect(row(await coverageOver(app, '?session=a'), '200').answered).toBe(1)
    expect((await coverageOver(app, '?session=a')).session).toBe('a')
    expect(row(await coverageOver(app, '?session=b'), '400').answered).toBe(1)
    expect((await coverageOver(app, '?session=nobody')).summary.requests).toBe(0)
    expect((await coverageOver(app)).summary.requests).toBe(2)
  })

  it('counts on through POST /__mock/reset and the journal’s ring; starts again on POST /__mock/coverage/reset', async () => {
    const app = await createApp({ logger: silentLogger, journalSize: 1 })
    await post(app, AUTH)
    await post(app, { ...AUTH, prefer: 'code=400' })
    expect(app.mock.requests()).toHaveLength(1)
    await app.request('/__mock/reset', { method: 'POST' })
    expect(app.mock.coverage().summary.requests).toBe(2)
    await post(app, { ...AUTH, 'x-mock-session': 's' })
    const reset = await app.request('/__mock/coverage/reset?session=s', { method: 'POST' })
    expect(((await reset.json()) as CoverageReport).summary.requests).toBe(0)
    expect(app.mock.coverage().summary.requests).toBe(3)
    await app.request('/__mock/coverage/reset', { method: 'POST' })
    expect(app.mock.coverage().summary.requests).toBe(0)
  })

  it('POST /__mock/coverage/report without --coverage-report is a 409 naming the flag', async () => {
    const app = await plantStore()
    const response = await app.request('/__mock/coverage/report', { method: 'POST' })
    expect(response.status).toBe(409)
    expect(((await response.json()) as { message: string }).message).toContain('--coverage-report')
    await expect(app.mock.writeCoverageReport()).rejects.toThrow(/--coverage-report/)
  })
})

describe('what else the tests exercised: fixtures and examples, stubs and rules, callbacks and webhooks (#29)', () => {
  const bodiesOf = (report: CoverageReport, status: string) =>
    row(report, status).bodies!.map((body) => [body.origin, body.name, body.answered])

  it('counts each fixture served, by name, and lists those never served', async () => {
    const app = await plantStore()
    expect(bodiesOf(app.mock.coverage(), '200')).toEqual([
      ['fixture', 'default', 0],
      ['fixture', 'monstera', 0],
    ])
    await post(app, AUTH)
    await post(app, AUTH)
    await post(app, { ...AUTH, prefer: 'example=monstera' })
    // An invalid request answered 400 with the mock's own message serves no fixture.
    await post(app, AUTH, '{"name":1}')
    const report = await coverageOver(app)
    expect(bodiesOf(report, '200')).toEqual([
      ['fixture', 'default', 2],
      ['fixture', 'monstera', 1],
    ])
    // In file order: 400.duplicate-id.json before 400.json.
    expect(bodiesOf(report, '400')).toEqual([
      ['fixture', 'duplicate-id', 0],
      ['fixture', 'default', 0],
    ])
    expect(report.summary.bodies).toEqual({ exercised: 2, total: 4 })
  })

  it('counts the requests each stub and scenario rule answered, and lists those that never answered', async () => {
    const app = await plantStore()
    const before = app.mock.coverage()
    const scenarioRules = before.rules.map((r) => r.rule)
    expect(scenarioRules.length).toBeGreaterThan(0)
    expect(before.rules.every((r) => r.hits === 0)).toBe(true)
    app.mock.stub({ operation: 'addPlant', when: { body: { '$.name': 'Poison Ivy' } }, status: 400 })
    app.mock.stub({ operation: 'addPlant', when: { body: { '$.name': 'Never Sent' } }, status: 400 })
    await post(app, AUTH, '{"id":2,"name":"Poison Ivy"}')
    await post(app, AUTH, '{"id":3,"name":"Poison Ivy"}')
    await post(app, { ...AUTH, 'x-mock-scenario': 'duplicate-plant' })
    const report = await coverageOver(app)
    const hits = Object.fromEntries(report.rules.map((r) => [r.rule, r.hits]))
    expect(hits['stub 1']).toBe(2)
    expect(hits['stub 2']).toBe(0)
    const duplicate = scenarioRules.filter((label) => label.includes('duplicate-plant'))
    expect(duplicate).toHaveLength(1)
    expect(hits[duplicate[0]!]).toBe(1)
    // The scenario's rule served the fixture it names, and the stubs (a status, no body of their own)
    // the 400's default fixture: counted as those fixtures too.
    expect(bodiesOf(report, '400')).toEqual([
      ['fixture', 'duplicate-id', 1],
      ['fixture', 'default', 2],
    ])
    expect(report.summary.rules).toEqual({ exercised: 2, total: scenarioRules.length + 2 })
  })

  it('counts callbacks as they settle, by operation and name, delivered or not, and the files say which were never sent', async () => {
    const receivers = createReceivers()
    try {
      const receiver = await receivers.start(answerWith(200))
      const app = await createApp({
        spec: fileURLToPath(new URL('../descriptions/events/callbacks.yaml', import.meta.url)),
        logger: silentLogger,
      })
      const subscribe = (callbackUrl: string) =>
        app.request('/subscriptions', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ callbackUrl }),
        })
      const none = app.mock.coverage()
      expect(none.events.map((e) => [e.kind, e.operation, e.name, e.sent])).toEqual([
        ['callback', 'subscribe', 'onPlantAdded', 0],
        ['callback', 'subscribe', 'onTopic', 0],
      ])
      // Without ?topic= the onTopic URL has nothing to read; onPlantAdded goes to the receiver.
      expect((await subscribe(receiver.url)).status).toBe(201)
      await app.mock.waitForDeliveries({ name: 'onPlantAdded', count: 1 })
      const report = await coverageOver(app)
      const onPlantAdded = report.events.find((e) => e.name === 'onPlantAdded')!
      expect(onPlantAdded).toMatchObject({ sent: 1, delivered: 1, conformed: 1, undelivered: 0 })
      expect(report.summary.events.total).toBe(2)
      expect(report.summary.events.exercised).toBe(report.events.filter((e) => e.sent > 0).length)
      const files = renderCoverageFiles(report, 'Subscriptions')
      const junit = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(files['junit.xml']!)
      const [, events] = junit.testsuites.testsuite as Array<{
        name: string
        testcase: Array<{ name: string; failure?: unknown }>
      }>
      expect(events!.name).toBe('Subscriptions: callbacks and webhooks')
      const sent = new Map(report.events.map((e) => [`${e.operation} callback ${e.name}`, e.sent > 0]))
      expect(events!.testcase.map((c) => [c.name, c.failure === undefined])).toEqual([...sent])
      expect(files['coverage.md']).toContain('| subscribe callback onPlantAdded | 1 | 1 | 1 | 0 |')
    } finally {
      await receivers.closeAll()
    }
  })
})

describe('coverage of a description from the wild (#29)', () => {
  const spec = fileURLToPath(new URL('../descriptions/wild/statuses.yaml', import.meta.url))
  const document = parse(readFileSync(spec, 'utf8')) as { paths: Record<string, Record<string, any>> }
  // Counted here from the YAML itself: each operation × declared status × media type (one row without content).
  const declared = Object.values(document.paths).flatMap((item) =>
    Object.entries(item)
      .filter(([method]) => ['get', 'put', 'post', 'delete', 'patch'].includes(method))
      .map(([, operation]) => operation.responses ?? {}),
  )
  const statuses = declared.reduce((n, responses) => n + Object.keys(responses).length, 0)
  const responses = declared.reduce(
    (n, byStatus) =>
      n +
      Object.values(byStatus as Record<string, { content?: object }>).reduce(
        (m, response) => m + Math.max(1, Object.keys(response.content ?? {}).length),
        0,
      ),
    0,
  )

  it('lists every operation and declared response, and counts the 404 /gone answers (its lowest status) as exercised', async () => {
    const app = await createApp({ spec, logger: silentLogger })
    expect((await app.request('/gone')).status).toBe(404)
    const report = app.mock.coverage()
    expect(report.summary.operations).toEqual({ exercised: 1, total: declared.length })
    expect(report.summary.statuses).toEqual({ exercised: 1, total: statuses })
    expect(report.summary.responses).toEqual({ exercised: 1, total: responses })
    const gone = report.operations.find((o) => o.operation === 'gone')!
    expect(gone.responses.find((r) => r.status === '410')).toMatchObject({ answered: 0, mediaType: 'application/json' })
    expect(gone.responses.find((r) => r.status === '404')).toMatchObject({ answered: 1, mediaType: null })
  })
})

describe('the report files (#29)', () => {
  it('junit.xml has a test case per operation × status, failed when never exercised; HTML and Markdown escape what a request sent', async () => {
    const app = await plantStore()
    await post(app, AUTH)
    await app.request('/plantz')
    const report = app.mock.coverage()
    // A client's URL is percent-encoded on the way; a report is escaped whatever it holds.
    report.unmatched[0]!.path = '/<script>alert(1)</script>|x'
    const files = renderCoverageFiles(report, 'Plant <Store> & co')
    const junit = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(files['junit.xml']!)
    const suite = junit.testsuites.testsuite
    expect(suite.tests).toBe('2')
    expect(suite.failures).toBe('1')
    expect(suite.name).toBe('Plant <Store> & co')
    const cases = suite.testcase as Array<{ name: string; failure?: unknown }>
    expect(cases.map((c) => [c.name, c.failure !== undefined])).toEqual([
      ['POST /plants 200', false],
      ['POST /plants 400', true],
    ])
    expect(files['coverage.html']).not.toContain('<script>')
    expect(files['coverage.html']).toContain('&lt;script&gt;')
    expect(files['coverage.md']).toContain('| POST /plants (`addPlant`) | 400 | **never** |')
    expect(files['coverage.md']).toContain('\\|x')
    expect(JSON.parse(files['coverage.json']!)).toEqual(report)
  })
})
