/**
 * Record, then replay (#18), as a team snapshots staging for CI: a mock in proxy mode with `--record`
 * in front of a real upstream on loopback, sent requests with every kind of credential; closed; then
 * a mock in plain mock mode on the folder it wrote, which must answer the same requests with the same
 * bodies, and any other request with the first answer recorded. No credential is in any file written.
 */
import { readFile, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { type MockOptions, type MockServer, startMockServer } from '../../src/index.js'
import { silentLogger } from '../../src/common/log.js'
import { createReceivers } from '../support/receivers.js'
import { removeTempDirs, tempDir } from '../support/temp-dirs.js'

const spec = join(import.meta.dirname, '../descriptions/recording.yaml')
const SECRETS = {
  token: 'secret-token-1',
  headerKey: 'secret-header-key',
  queryKey: 'secret-query-key',
  cookie: 's=secret-cookie',
}
const credentials = {
  authorization: `Bearer ${SECRETS.token}`,
  'x-api-key': SECRETS.headerKey,
  cookie: SECRETS.cookie,
}
const receivers = createReceivers()
const servers: MockServer[] = []

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
  await receivers.closeAll()
  await removeTempDirs()
})

/** A staging server: `GET /plants?limit=N` lists N plants named after `edition`, POST echoes the plant. */
async function startStaging(edition: string): Promise<string> {
  const staging = await receivers.start((res, request) => {
    const url = new URL(request.url, 'http://staging')
    if (request.method === 'POST') {
      const plant = JSON.parse(request.body) as { name: string }
      return void res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ name: plant.name, tag: edition }))
    }
    const count = Number(url.searchParams.get('limit') ?? 1)
    const plants = Array.from({ length: count }, (_, i) => ({ name: `${edition}-${i + 1}` }))
    res
      .writeHead(200, {
        'content-type': 'application/json',
        'x-rate-limit': String(100 - count),
        'set-cookie': `session=${SECRETS.cookie}`,
        'x-api-key': SECRETS.headerKey,
      })
      .end(JSON.stringify(plants))
  })
  return staging.origin
}

async function start(options: MockOptions): Promise<MockServer> {
  const server = await startMockServer({ spec, port: 0, logger: silentLogger, ...options })
  servers.push(server)
  return server
}

/** The requests of the session, each as [path, init]. */
const SESSION: Array<[string, RequestInit]> = [
  [`/plants?limit=2&api_key=${SECRETS.queryKey}`, { headers: credentials }],
  [`/plants?api_key=${SECRETS.queryKey}&limit=3`, { headers: credentials }],
  [
    '/plants',
    {
      method: 'POST',
      headers: { ...credentials, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Fern' }),
    },
  ],
]

async function answersOf(server: MockServer, session = SESSION) {
  const answers = []
  for (const [path, init] of session) {
    const response = await fetch(server.url + path, init)
    answers.push({
      status: response.status,
      body: await response.text(),
      rateLimit: response.headers.get('x-rate-limit'),
    })
  }
  return answers
}

async function filesIn(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {}
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true }))
    if (entry.isFile())
      files[join(entry.parentPath, entry.name).slice(dir.length + 1)] = await readFile(
        join(entry.parentPath, entry.name),
        'utf8',
      )
  return files
}

describe('recording staging, then replaying it without staging (#18)', () => {
  it('answers the recorded requests with the same bodies, and writes no credential', async () => {
    const dir = await tempDir('mock-recorded-')
    const empty = await tempDir('mock-no-fixtures-')
    const proxy = await start({ proxy: await startStaging('staging'), record: dir, fixtures: empty })
    const recorded = await answersOf(proxy)
    expect(recorded.map((a) => a.status)).toEqual([200, 200, 200])
    expect(JSON.parse(recorded[0]!.body)).toEqual([{ name: 'staging-1' }, { name: 'staging-2' }])
    await proxy.close()

    const files = await filesIn(dir)
    // Three requests (the query's order does not matter), each by its hash, plus the first of each operation as the default.
    expect(
      Object.keys(files)
        .filter((name) => !name.endsWith('.headers.json'))
        .sort(),
    ).toHaveLength(5)
    expect(files[join('listPlants', '200.json')]).toBeDefined()
    // addPlant declares 2XX, which a fixture replays as 200: staging's 200 is recorded under it.
    expect(JSON.parse(files[join('addPlant', '2XX.json')]!)).toEqual({ name: 'Fern', tag: 'staging' })
    for (const [name, text] of Object.entries(files))
      for (const secret of Object.values(SECRETS)) expect(text, `${name} holds ${secret}`).not.toContain(secret)

    const replay = await start({ fixtures: dir })
    expect(await answersOf(replay)).toEqual(recorded)
    // A request staging was never asked: the first answer recorded for the operation.
    const other = await fetch(`${replay.url}/plants?limit=7`, { headers: credentials })
    expect(await other.text()).toBe(recorded[0]!.body)
  })

  it('keeps what was recorded on a second run, and replaces it with --record-overwrite', async () => {
    const dir = await tempDir('mock-recorded-')
    const empty = await tempDir('mock-no-fixtures-')
    const first = await start({ proxy: await startStaging('first'), record: dir, fixtures: empty })
    const [firstAnswer] = await answersOf(first, SESSION.slice(0, 1))
    await first.close()

    const again = await start({ proxy: await startStaging('second'), record: dir, fixtures: empty })
    await answersOf(again, SESSION.slice(0, 1))
    await again.close()
    const kept = await start({ fixtures: dir })
    expect((await answersOf(kept, SESSION.slice(0, 1)))[0]!.body).toBe(firstAnswer!.body)

    const overwrite = await start({
      proxy: await startStaging('third'),
      record: dir,
      recordOverwrite: true,
      fixtures: empty,
    })
    const [third] = await answersOf(overwrite, SESSION.slice(0, 1))
    await overwrite.close()
    const replaced = await start({ fixtures: dir })
    expect((await answersOf(replaced, SESSION.slice(0, 1)))[0]!.body).toBe(third!.body)
  })

  it('names a recording by Prefer: example=NAME, forwarded rather than mocked while recording', async () => {
    const dir = await tempDir('mock-recorded-')
    const empty = await tempDir('mock-no-fixtures-')
    const proxy = await start({ proxy: await startStaging('named'), record: dir, fixtures: empty })
    const asked = await fetch(`${proxy.url}/plants?limit=4`, { headers: { ...credentials, prefer: 'example=four' } })
    expect(JSON.parse(await asked.text())).toHaveLength(4)
    expect(proxy.requests()[0]).toMatchObject({ proxy: 'forwarded to the upstream' })
    await proxy.close()
    expect(Object.keys(await filesIn(dir)).sort()).toEqual(
      [
        join('listPlants', '200.four.headers.json'),
        join('listPlants', '200.four.json'),
        join('listPlants', '200.headers.json'),
        join('listPlants', '200.json'),
      ].sort(),
    )
    const replay = await start({ fixtures: dir })
    const named = await fetch(`${replay.url}/plants?limit=1`, { headers: { ...credentials, prefer: 'example=four' } })
    expect(JSON.parse(await named.text())).toHaveLength(4)
  })
})
