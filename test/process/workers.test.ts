/**
 * `--workers N` (#19): the CLI as a primary and two workers on one port. Requests go on fresh
 * connections (`Connection: close`, no agent), which node:cluster hands to the workers in turn, so
 * that both answer; what one worker is told (data, scenario, stubs) every worker applies, and the
 * journal lists what every worker served. Every wait is bounded; traffic stays on loopback.
 */
import { execFileSync } from 'node:child_process'
import http from 'node:http'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { type Spawned, runCli, startCli, startedUrl, stopProcesses, within } from '../support/processes.js'
import { gardenSpec } from '../support/stateful.js'

afterEach(async () => {
  await stopProcesses()
})

/** Slot of the worker that journaled an entry: ids across workers are `id × 64 + slot`. */
const slotOf = (entry: { id: number }) => entry.id % 64

async function started(args: string[], env: Record<string, string> = {}): Promise<Spawned & { url: string }> {
  const cli = startCli(['--port', '0', ...args], env)
  return { ...cli, url: await startedUrl(cli, 15_000) }
}

/** One request on a connection of its own, closed after the answer. */
function send(
  url: string,
  path: string,
  { method = 'GET', body, headers = {} }: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; json: any }> {
  return within(
    5000,
    `${method} ${path}`,
    new Promise((resolve, reject) => {
      const request = http.request(`${url}${path}`, {
        method,
        agent: false,
        headers: { connection: 'close', authorization: 'Bearer t', 'content-type': 'application/json', ...headers },
      })
      request.on('error', reject)
      request.on('response', (response) => {
        let text = ''
        response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk))
        response.on('end', () => resolve({ status: response.statusCode!, json: text ? JSON.parse(text) : undefined }))
      })
      request.end(body === undefined ? undefined : JSON.stringify(body))
    }),
  )
}

/** `count` requests, one after the other, each on a new connection. */
async function sendMany(count: number, url: string, path: string, options?: Parameters<typeof send>[2]) {
  const answers = []
  for (let i = 0; i < count; i++) answers.push(await send(url, path, options))
  return answers
}

const NEW_PLANT = { method: 'POST', body: { id: 1, name: 'Fern' } }

describe('--workers 2', () => {
  it('answers on both workers, and the journal lists every request of both', async () => {
    const cli = await started(['--workers', '2'])
    const answers = await sendMany(12, cli.url, '/plants', NEW_PLANT)
    expect(answers.map((a) => a.status)).toEqual(Array(12).fill(200))
    expect((await send(cli.url, '/__mock/requests/count')).json).toEqual({ count: 12 })
    const { json } = await send(cli.url, '/__mock/requests?limit=1000')
    expect(json.requests).toHaveLength(12)
    expect(new Set(json.requests.map(slotOf))).toEqual(new Set([0, 1]))
    const times = json.requests.map((entry: { time: string }) => entry.time)
    expect([...times].sort()).toEqual(times)
  })

  it('GET /__mock/requests/{id} gives each listed entry, whichever worker is asked, and the summary stream names them so (#29)', async () => {
    const cli = await started(['--workers', '2'])
    await sendMany(6, cli.url, '/plants', NEW_PLANT)
    const { json } = await send(cli.url, '/__mock/requests?limit=1000')
    expect(new Set(json.requests.map(slotOf))).toEqual(new Set([0, 1]))
    for (const listed of json.requests as Array<{ id: number; time: string }>)
      // Two asks each: connections alternate between the workers, so each entry is asked of both.
      for (const answer of await sendMany(2, cli.url, `/__mock/requests/${listed.id}`)) {
        expect(answer.status).toBe(200)
        expect(answer.json).toMatchObject({ id: listed.id, time: listed.time, operation: 'addPlant' })
      }
    expect((await send(cli.url, '/__mock/requests/999999')).status).toBe(404)
    // A worker's summary stream replays its own entries, with the ids the listing gives them.
    const text = await within(
      5000,
      'the summary stream',
      new Promise<string>((resolve, reject) => {
        const request = http.request(`${cli.url}/__mock/requests/stream?view=summary&after=0`, { agent: false })
        request.on('error', reject)
        request.on('response', (response) => {
          let read = ''
          response.setEncoding('utf8').on('data', (chunk: string) => {
            read += chunk
            if (read.includes('event: summaries')) (request.destroy(), resolve(read))
          })
        })
        request.end()
      }),
    )
    const summaries = JSON.parse(/^data: (.*)$/m.exec(text.slice(text.indexOf('event: summaries')))![1]!)
    const listed = new Set(json.requests.map((entry: { id: number }) => entry.id))
    expect(summaries.length).toBeGreaterThan(0)
    for (const summary of summaries) expect(listed.has(summary.id)).toBe(true)
  })

  it('pages the merged journal with limit and cursor, whichever worker is asked', async () => {
    const cli = await started(['--workers', '2'])
    await sendMany(7, cli.url, '/plants', NEW_PLANT)
    const seen: number[] = []
    let path = '/__mock/requests?limit=3'
    for (let page = 0; page < 5 && path; page++) {
      const { json } = await send(cli.url, path)
      seen.push(...json.requests.map((entry: { id: number }) => entry.id))
      path = json.next ? `/__mock/requests?limit=3&cursor=${json.next}` : ''
    }
    expect(seen).toHaveLength(7)
    expect(new Set(seen).size).toBe(7)
  })

  it('a scenario switched through one worker applies to the requests of every worker', async () => {
    const cli = await started(['--workers', '2'])
    const switched = await send(cli.url, '/__mock/scenario', { method: 'PUT', body: { name: 'error' } })
    expect(switched.json.active).toBe('error')
    const answers = await sendMany(8, cli.url, '/plants', NEW_PLANT)
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(400))
    const { json } = await send(cli.url, '/__mock/requests?status=400')
    expect(new Set(json.requests.map(slotOf))).toEqual(new Set([0, 1]))
    for (const answer of await sendMany(4, cli.url, '/__mock/scenario')) expect(answer.json.active).toBe('error')
  })

  it('a stub added through one worker answers on every worker, and its hits are summed', async () => {
    const cli = await started(['--workers', '2'])
    const stub = await send(cli.url, '/__mock/stubs', {
      method: 'POST',
      body: { operation: 'addPlant', status: 400, body: { error: 400, message: 'stubbed' } },
    })
    expect(stub.status).toBe(201)
    const answers = await sendMany(6, cli.url, '/plants', NEW_PLANT)
    expect(answers.map((a) => a.json.message)).toEqual(Array(6).fill('stubbed'))
    const listed = await send(cli.url, '/__mock/stubs')
    expect(listed.json.stubs.map((s: { id: number; hits: number }) => [s.id, s.hits])).toEqual([[stub.json.id, 6]])
    expect((await send(cli.url, '/__mock/reset', { method: 'POST' })).status).toBe(200)
    expect((await sendMany(4, cli.url, '/plants', NEW_PLANT)).map((a) => a.status)).toEqual(Array(4).fill(200))
    expect((await send(cli.url, '/__mock/requests/count')).json).toEqual({ count: 4 })
  })

  it('GET /__mock/coverage adds up the counts of every worker, and the report holds them all (#29)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'workers-coverage-'))
    try {
      const cli = await started(['--workers', '2', '--coverage-report', dir])
      await sendMany(6, cli.url, '/plants', NEW_PLANT)
      await sendMany(4, cli.url, '/plants', { ...NEW_PLANT, headers: { prefer: 'code=400' } })
      await sendMany(2, cli.url, '/nowhere')
      const { json } = await send(cli.url, '/__mock/requests?limit=1000')
      expect(new Set(json.requests.map(slotOf))).toEqual(new Set([0, 1]))
      const coverage = (await send(cli.url, '/__mock/coverage')).json
      expect(coverage.summary).toMatchObject({ requests: 12, unmatched: 2, statuses: { exercised: 2, total: 2 } })
      const rows = coverage.operations[0].responses
      expect(rows.map((r: { answered: number; forced: number }) => [r.answered, r.forced])).toEqual([
        [6, 0],
        [4, 4],
      ])
      expect(coverage.unmatched).toEqual([{ method: 'GET', path: '/nowhere', count: 2, nearest: ['/plants'] }])
      expect((await send(cli.url, '/__mock/coverage/report', { method: 'POST' })).status).toBe(200)
      const written = JSON.parse(readFileSync(join(dir, 'coverage.json'), 'utf8'))
      expect(written.summary.requests).toBe(12)
      expect((await send(cli.url, '/__mock/coverage/reset', { method: 'POST' })).status).toBe(200)
      expect((await send(cli.url, '/__mock/coverage')).json.summary.requests).toBe(0)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('POST /__mock/verify reads the journal and the stub hits of every worker (#29)', async () => {
    const cli = await started(['--workers', '2'])
    const stub = await send(cli.url, '/__mock/stubs', {
      method: 'POST',
      body: { operation: 'addPlant', when: { body: { '$.name': 'Ivy' } }, status: 400 },
    })
    expect(stub.status).toBe(201)
    await sendMany(6, cli.url, '/plants', NEW_PLANT)
    await sendMany(2, cli.url, '/plants', { method: 'POST', body: { id: 2, name: 'Ivy' } })
    await sendMany(2, cli.url, '/plants', { method: 'POST', body: { id: 'x', name: 'Rose' } })
    const listed = await send(cli.url, '/__mock/requests?limit=1000')
    expect(new Set(listed.json.requests.map(slotOf))).toEqual(new Set([0, 1]))
    // Each worker journaled only some of these: every count holds only over both journals.
    const checks = [
      { operation: 'addPlant', status: 200, times: 6 },
      { operation: 'addPlant', status: 400, body: { '$.name': 'Ivy' }, times: 2 },
      { allStubsUsed: true },
    ]
    for (let i = 0; i < 2; i++) {
      const passed = await send(cli.url, '/__mock/verify', { method: 'POST', body: { checks } })
      expect(passed).toEqual({ status: 200, json: { ok: true, checked: 3, dropped: 0 } })
    }
    const failed = await send(cli.url, '/__mock/verify', {
      method: 'POST',
      body: { checks: [{ operation: 'addPlant', status: 201 }, { noViolations: true }] },
    })
    expect(failed.status).toBe(409)
    expect(failed.json.failures[0].nearMisses).toHaveLength(10)
    expect(new Set(failed.json.failures[0].nearMisses.map(slotOf))).toEqual(new Set([0, 1]))
    expect(failed.json.failures[1]).toMatchObject({ kind: 'noViolations', found: 2 })
    const bad = await send(cli.url, '/__mock/verify', { method: 'POST', body: { checks: [{ operation: 'nope' }] } })
    expect(bad.status).toBe(400)
    expect(bad.json.message).toContain('"nope" names no operation')
  })

  it('a record created through one worker is read, listed and deleted through the others (--stateful)', async () => {
    const cli = await started(['--spec', gardenSpec, '--stateful', '--workers', '2'])
    const created = await send(cli.url, '/plants', { method: 'POST', body: { name: 'Fern', tag: 'shade' } })
    expect(created).toEqual({ status: 201, json: { id: 1, name: 'Fern', tag: 'shade' } })
    for (const read of await sendMany(6, cli.url, '/plants/1')) expect(read.json).toEqual(created.json)
    const { json } = await send(cli.url, '/__mock/requests?path=/plants/1')
    expect(new Set(json.requests.map(slotOf))).toEqual(new Set([0, 1]))
    expect((await send(cli.url, '/plants')).json).toEqual({ items: [created.json], total: 1 })
    expect((await send(cli.url, '/plants/1', { method: 'DELETE' })).status).toBe(204)
    for (const read of await sendMany(4, cli.url, '/plants/1')) expect(read.status).toBe(404)
  })

  it('SIGTERM stops every worker after its in-flight requests and exits 0', async () => {
    const cli = await started(['--workers', '2', '--delay', '300'])
    const workers = execFileSync('pgrep', ['-P', String(cli.child.pid)], { encoding: 'utf8' })
      .trim()
      .split('\n')
    expect(workers).toHaveLength(2)
    const inFlight = Promise.all([send(cli.url, '/plants', NEW_PLANT), send(cli.url, '/plants', NEW_PLANT)])
    await new Promise((resolve) => setTimeout(resolve, 100))
    cli.child.kill('SIGTERM')
    expect((await inFlight).map((a) => a.status)).toEqual([200, 200])
    expect(await within(10_000, 'the primary to exit', cli.exited)).toBe(0)
    for (const pid of workers) expect(() => process.kill(Number(pid), 0)).toThrow()
    expect(cli.stdout().match(/listening on/g)).toHaveLength(1)
  })

  it('replaces a worker that dies, and the new one has the scenario switched before', async () => {
    const cli = await started(['--workers', '2'])
    await send(cli.url, '/__mock/scenario', { method: 'PUT', body: { name: 'error' } })
    const [victim] = execFileSync('pgrep', ['-P', String(cli.child.pid)], { encoding: 'utf8' })
      .trim()
      .split('\n')
    process.kill(Number(victim), 'SIGKILL')
    await within(
      5000,
      'the replacement',
      waitFor(() => /starting another/.test(cli.stderr())),
    )
    await within(
      5000,
      'two workers again',
      waitFor(
        () =>
          execFileSync('pgrep', ['-P', String(cli.child.pid)], { encoding: 'utf8' })
            .trim()
            .split('\n').length === 2,
      ),
    )
    await new Promise((resolve) => setTimeout(resolve, 500))
    const answers = await sendMany(6, cli.url, '/plants', NEW_PLANT)
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(400))
  })
})

describe('--workers at start-up', () => {
  it.each([['0'], ['x'], ['65'], ['-1']])('--workers %s is refused with cli_bad_workers', async (value) => {
    const { code, stdout, stderr } = await runCli(['--port', '0', `--workers=${value}`])
    expect(code).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toContain(`--workers takes a whole number of processes from 1 to 64, or "auto"`)
    expect(stderr).toContain('[cli_bad_workers]')
  })

  it('MOCK_WORKERS is read, and a bad one named', async () => {
    const { code, stderr } = await runCli(['--port', '0'], { MOCK_WORKERS: 'many' })
    expect(code).toBe(1)
    expect(stderr).toContain('The environment variable MOCK_WORKERS takes a whole number')
    const cli = await started([], { MOCK_WORKERS: '2' })
    expect((await sendMany(4, cli.url, '/plants', NEW_PLANT)).map((a) => a.status)).toEqual(Array(4).fill(200))
  })

  it('a port in use is reported once, exit 1, as by one process', async () => {
    const taken = await started([])
    const port = new URL(taken.url).port
    const { code, stdout, stderr } = await runCli(['--port', port, '--workers', '2'])
    expect(code).toBe(1)
    expect(stdout).toBe('')
    expect(stderr.match(/\[port_in_use\]/g)).toHaveLength(1)
  })

  it('a bad description is reported once, exit 1', async () => {
    const { code, stderr } = await runCli(['--spec', 'no-such-file.yaml', '--workers', '2'])
    expect(code).toBe(1)
    expect(stderr.match(/\[description_unreadable\]/g)).toHaveLength(1)
  })
})

function waitFor(check: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const poll = () => (check() ? resolve() : setTimeout(poll, 50))
    poll()
  })
}
