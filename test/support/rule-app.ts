/**
 * The Rules description (`test/descriptions/rules/`) served with a scenarios file of the test's own,
 * for the tests of scenario rules with conditions, counts and sequences (#16), and a client for it.
 * A test that makes an app here runs `removeTempDirs` after (test/support/temp-dirs.ts).
 */
import { cp } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type AppOptions, type MockApp } from '../../src/index.js'
import { createApp } from './store-under-test.js'
import { removeTempDirs, tempDir, writeFiles } from './temp-dirs.js'

/** POST /items (addItem, a JSON body) and GET /items/{itemId} (getItem: a query and a cookie parameter). */
export const rulesSpec = fileURLToPath(new URL('../descriptions/rules/openapi.yaml', import.meta.url))
const rulesFixtures = fileURLToPath(new URL('../descriptions/rules/fixtures', import.meta.url))
/** The Plant Store and its fixtures, as shipped. */
export const plantStoreSpec = fileURLToPath(new URL('../../openapi.yaml', import.meta.url))
const plantStoreFixtures = fileURLToPath(new URL('../../fixtures', import.meta.url))

/** A copy of a fixtures folder whose scenarios file is `scenarios` (YAML text). */
export async function fixturesWith(scenarios: string, from = rulesFixtures): Promise<string> {
  const dir = await tempDir('rules-')
  await cp(from, dir, { recursive: true })
  await writeFiles(dir, { 'scenarios.yaml': scenarios })
  return dir
}

/** The Rules description with the given scenarios file. */
export async function rulesApp(scenarios: string, options: AppOptions = {}): Promise<MockApp> {
  return createApp({ spec: rulesSpec, fixtures: await fixturesWith(scenarios), ...options })
}

/** The Plant Store (`openapi.yaml`) with a copy of its fixtures and the given scenarios file. */
export async function plantStoreApp(scenarios: string, options: AppOptions = {}): Promise<MockApp> {
  return createApp({ spec: plantStoreSpec, fixtures: await fixturesWith(scenarios, plantStoreFixtures), ...options })
}

/**
 * One request: with a `body`, POST /items with it (an object as JSON, a string as it is); without,
 * GET `path` (default `/items/x`). `session` is sent as X-Mock-Session, `cookie` as Cookie.
 */
export interface Sent {
  body?: unknown
  path?: string
  headers?: Record<string, string>
  cookie?: string
  session?: string
}

export interface Answer {
  status: number
  headers: Headers
  text: string
  /** The parsed body when it is JSON, else undefined. */
  json: any
  /** Milliseconds from sending to the whole body read. */
  ms: number
}

export async function send(app: MockApp, sent: Sent): Promise<Answer> {
  const headers: Record<string, string> = { ...sent.headers }
  if (sent.cookie !== undefined) headers.cookie = sent.cookie
  if (sent.session !== undefined) headers['x-mock-session'] = sent.session
  const started = performance.now()
  let response: Response
  if (sent.body === undefined) {
    response = await app.request(sent.path ?? '/items/x', { headers })
  } else {
    headers['content-type'] ??= 'application/json'
    const body = typeof sent.body === 'string' ? sent.body : JSON.stringify(sent.body)
    response = await app.request(sent.path ?? '/items', { method: 'POST', headers, body })
  }
  const text = await response.text()
  const json = /json/.test(response.headers.get('content-type') ?? '') && text ? JSON.parse(text) : undefined
  return { status: response.status, headers: response.headers, text, json, ms: performance.now() - started }
}

/** The statuses of the requests, sent one after the other. */
export async function statusesOf(app: MockApp, requests: readonly Sent[]): Promise<number[]> {
  const statuses: number[] = []
  for (const sent of requests) statuses.push((await send(app, sent)).status)
  return statuses
}

/** A condition to test: a rule whose `when` it is answers 503; a request it does not hold for gets 200. */
export interface ConditionCase {
  /** The test's name. */
  name: string
  /** The rule's `when`, as YAML (flow style). */
  when: string
  /** Requests it holds for, and requests it does not hold for. */
  hit?: Sent[]
  miss?: Sent[]
}

/**
 * One test per case, in one describe per group: each case is a scenario of its own (`case-N`, named
 * by X-Mock-Scenario) whose one rule, for addItem when a request of the case sends a body, else for
 * getItem, answers 503 when its `when` holds. Returns the app and the scenario name of a case.
 */
export function describeConditions(groups: ReadonlyArray<readonly [string, readonly ConditionCase[]]>) {
  const cases = groups.flatMap(([, group]) => group)
  const scenarioOf = (c: ConditionCase) => `case-${cases.indexOf(c)}`
  const operationOf = (c: ConditionCase) =>
    [...(c.hit ?? []), ...(c.miss ?? [])].some((sent) => sent.body !== undefined) ? 'addItem' : 'getItem'
  const state: { app?: MockApp } = {}
  const statusFor = async (c: ConditionCase, sent: Sent) =>
    (await send(state.app!, { ...sent, headers: { ...sent.headers, 'x-mock-scenario': scenarioOf(c) } })).status

  beforeAll(async () => {
    const rule = (c: ConditionCase) => `    ${operationOf(c)}:\n      - when: ${c.when}\n        status: 503\n`
    state.app = await rulesApp(cases.map((c) => `${scenarioOf(c)}:\n  rules:\n${rule(c)}`).join(''))
  })
  afterAll(removeTempDirs)

  for (const [title, group] of groups) {
    describe(`conditions (#16): ${title}`, () => {
      it.each(group.map((c) => [c.name, c] as const))('%s', async (_, c) => {
        for (const sent of c.hit ?? []) expect(await statusFor(c, sent), `holds for ${JSON.stringify(sent)}`).toBe(503)
        for (const sent of c.miss ?? []) expect(await statusFor(c, sent), `fails for ${JSON.stringify(sent)}`).toBe(200)
      })
    })
  }
  return { app: () => state.app!, scenarioOf, statusFor }
}
