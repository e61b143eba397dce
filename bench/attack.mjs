#!/usr/bin/env node
// `npm run attack`: what an attacker or a careless user does to the mock (issue #12), each attack
// against a fresh mock process on loopback, every loop bounded in count and time. For each: the
// answers it got, the mock's peak RSS (sampled from /proc every 50 ms), how long the attack took,
// and whether the mock still answers /__mock/health afterwards.
//
//   npm run attack                       every attack at full size (a few minutes)
//   npm run attack -- --quick            smaller sizes (CI runs this through test/process/attack.test.ts)
//   npm run attack -- --dist DIR         another build of the mock (e.g. an older one, for before/after)
//   npm run attack -- --only redos --json
//   ATTACK_NODE_FLAGS='--cpu-prof --cpu-prof-dir=/tmp/prof' npm run attack -- --only held   (Node flags for the mock)
//
// Each attack also tells the longest the mock's event loop was held while it ran (`loop held ms`):
// how long every other client waited at worst (bench/loop-delay.mjs, preloaded).
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { Agent, fetch as fetchWith } from 'undici'
import { ensureBuilt, root } from './corpus/corpus.mjs'
import { BOMB_PATHS, otherClientDuringBomb } from './generation-bomb.mjs'
import { killAll, probe, rssMiB, sleep, startServer, table } from './harness.mjs'

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    dist: { type: 'string' },
    only: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
})
const quick = args.quick
const dist = resolve(args.dist ?? join(root, 'dist'))
if (!args.dist) ensureBuilt()
const dir = mkdtempSync(join(tmpdir(), 'plant-store-mock-attack-'))

/** A description written into the attack's folder. */
function description(name, paths, schemas = {}) {
  const file = join(dir, `${name}.json`)
  writeFileSync(
    file,
    JSON.stringify({ openapi: '3.1.0', info: { title: name, version: '1' }, paths, components: { schemas } }),
  )
  return file
}

const post = (schema, status = '204') => ({
  post: {
    requestBody: { required: true, content: { 'application/json': { schema } } },
    responses: { [status]: { description: 'ok' } },
  },
})
const json = (body) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body })

/** Sends `count` requests, `concurrency` at a time, each with a 10 s limit; resolves the statuses (0: no answer). */
async function send(url, count, concurrency, requestAt) {
  const statuses = []
  let next = 0
  const worker = async () => {
    while (next < count) {
      const i = next++
      const { path = '/x', ...init } = requestAt(i)
      statuses.push(
        await fetch(url + path, { ...init, signal: AbortSignal.timeout(10_000) }).then(
          async (r) => (await r.arrayBuffer(), r.status),
          () => 0,
        ),
      )
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return statuses
}

const n = (full, small) => (quick ? small : full)

/** Node's flags for the mock, for a profile of an attack. */
const NODE_FLAGS = (process.env.ATTACK_NODE_FLAGS ?? '').split(' ').filter(Boolean)

/** The preload that measures how long the mock's event loop is held (bench/loop-delay.mjs). */
const LOOP_DELAY = join(import.meta.dirname, 'loop-delay.mjs')

/**
 * The longest the mock's event loop was held since the last asking, in ms: asked by SIGUSR2, written to
 * `file` by the preload. NaN when no answer came within 5 s (a process that died, or a loop held that long).
 */
async function longestLoopDelay(server, file) {
  rmSync(file, { force: true })
  try {
    process.kill(server.pid, 'SIGUSR2')
  } catch {
    return Number.NaN
  }
  for (let waited = 0; waited < 5_000; waited += 20) {
    await sleep(20)
    let text = ''
    try {
      text = readFileSync(file, 'utf8')
    } catch {
      // Not written yet.
    }
    if (text) return Number(text)
  }
  return Number.NaN
}
/** What the generation-bomb attack saw: the other client's pings and their p99, and how long the body took. */
const bombSeen = { pings: 0, p99: Infinity, ms: 0 }

/** Open file descriptors of the mock's process: sockets and files it holds. */
function openFds(server) {
  try {
    return readdirSync(`/proc/${server.pid}/fd`).length
  } catch {
    return Number.NaN
  }
}

/**
 * One SSE stream of 20 items 50 ms apart, read as it comes; `leaveAfter` items, it leaves (aborts).
 * Resolves 200 for a stream read to its end or left on purpose, else the status or 0; bounded at 15 s.
 */
async function readStream(url, leaveAfter, dispatcher) {
  const abort = new AbortController()
  const timer = setTimeout(() => abort.abort(), 15_000)
  try {
    // undici's own fetch, which takes the attack's Agent as its dispatcher.
    const response = await fetchWith(`${url}/s`, {
      headers: { prefer: 'stream-items=20, stream-interval=50' },
      signal: abort.signal,
      dispatcher,
    })
    if (response.status !== 200) return response.status
    const reader = response.body.getReader()
    const decoder = new TextDecoder()
    let items = 0
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return items === 20 ? 200 : -items
      items += (decoder.decode(value, { stream: true }).match(/^id: /gm) ?? []).length
      if (leaveAfter !== undefined && items >= leaveAfter) {
        abort.abort()
        return 200
      }
    }
  } catch {
    return abort.signal.aborted ? 0 : -1
  } finally {
    clearTimeout(timer)
  }
}

/** What the streams attack saw of the mock besides the answers: descriptors and streams left running. */
const streamsSeen = {}
/** What the descriptors attack saw of a fresh client while the held answers waited. */
const freshSeen = {}
/** What the mock wrote to stderr during an attack (warnings at start-up come before it). */
const stderrSeen = []
/** The message of a refused deep body. */
const deepSeen = {}

/** A description whose names HTTP cannot carry in a header: a media type beyond Latin-1, a header example with a control character. */
const unsendable = {
  '/n': {
    get: {
      responses: {
        200: {
          description: 'notes',
          headers: {
            'X-Note': { schema: { type: 'string' }, example: 'Farn – grün 🌿' },
            'X-Bell': { schema: { type: 'string' }, example: 'ring\x07ring' },
          },
          content: { 'application/vnd.plant€+json': { schema: { type: 'object' }, example: { note: 'Fern' } } },
        },
      },
    },
  },
}

/** Collects what the mock writes to stderr from now on. */
function followStderr(server) {
  stderrSeen.length = 0
  server.child.stderr.on('data', (chunk) => stderrSeen.push(chunk.toString('utf8')))
}

/** Each attack: the mock's arguments, and what to do to it; `expect` says what a sound mock answers. */
const ATTACKS = [
  {
    name: 'violations',
    what: `${n(500, 40)} bodies with a 1 MB property name against additionalProperties: false`,
    args: () => [
      '--spec',
      description('violations', { '/x': post({ type: 'object', additionalProperties: false }) }),
      '--max-body',
      '2mb',
    ],
    run: (url) => send(url, n(500, 40), 4, () => json(`{"${'k'.repeat(1024 * 1024)}":1}`)),
    expect: (statuses) => statuses.every((s) => s === 422),
  },
  {
    name: 'sessions',
    what: `${n(2000, 100)} scenario switches for sessions named with 60 KB`,
    args: () => [],
    run: (url) =>
      send(url, n(2000, 100), 4, (i) => ({
        path: '/__mock/scenario',
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'error', session: `${i}-${'s'.repeat(60 * 1024)}` }),
      })),
    expect: (statuses) => statuses.every((s) => s === 400),
  },
  {
    name: 'held',
    what: `${n(190, 140)} answers delayed 3 s at once, each with a 512 KiB body`,
    args: () => ['--spec', description('held', { '/x': post({ type: 'object' }) })],
    run: (url) =>
      send(url, n(190, 140), n(190, 140), () => ({
        ...json(`{"pad":"${'p'.repeat(512 * 1024)}"}`),
        headers: { 'content-type': 'application/json', prefer: 'delay=3000' },
      })),
    expect: (statuses) =>
      statuses.filter((s) => s === 204).length === 128 && statuses.every((s) => s === 204 || s === 503),
  },
  {
    name: 'redos',
    what: `${n(20, 5)} values of 31 characters against ^(a+)+$`,
    args: () => [
      '--spec',
      description('redos', {
        '/x': post({ type: 'object', properties: { v: { type: 'string', pattern: '^(a+)+$' } } }),
      }),
    ],
    run: (url) => send(url, n(20, 5), 2, () => json(`{"v":"${'a'.repeat(30)}!"}`)),
    expect: (statuses) => statuses.every((s) => s === 422),
  },
  {
    name: 'deep-json',
    what: `${n(50, 5)} bodies nested 5,000 levels against a recursive schema`,
    args: () => [
      '--spec',
      description(
        'deep',
        { '/x': post({ $ref: '#/components/schemas/Node' }) },
        { Node: { type: 'object', properties: { next: { $ref: '#/components/schemas/Node' } } } },
      ),
    ],
    run: (url) => send(url, n(50, 5), 2, () => json(`${'{"next":'.repeat(5000)}{}${'}'.repeat(5000)}`)),
    expect: (statuses) => statuses.every((s) => s === 422),
  },
  {
    name: 'form-repeats',
    what: `${n(10, 2)} form bodies repeating one field 40,000 times`,
    args: () => [
      '--spec',
      description('form', {
        '/x': {
          post: {
            requestBody: {
              required: true,
              content: {
                'application/x-www-form-urlencoded': {
                  schema: { type: 'object', properties: { tag: { type: 'array', items: { type: 'string' } } } },
                },
              },
            },
            responses: { 204: { description: 'ok' } },
          },
        },
      }),
    ],
    run: (url) =>
      send(url, n(10, 2), 2, () => ({
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'tag=a&'.repeat(40_000),
      })),
    expect: (statuses) => statuses.every((s) => s === 204),
  },
  {
    name: 'multipart-cut',
    what: `${n(20, 3)} multipart bodies cut inside a file part`,
    args: () => [
      '--spec',
      description('multipart', {
        '/x': {
          post: {
            requestBody: { required: true, content: { 'multipart/form-data': { schema: { type: 'object' } } } },
            responses: { 204: { description: 'ok' } },
          },
        },
      }),
    ],
    run: (url) =>
      send(url, n(20, 3), 2, () => ({
        method: 'POST',
        headers: { 'content-type': 'multipart/form-data; boundary=XX' },
        body: '--XX\r\nContent-Disposition: form-data; name="f"; filename="a.txt"\r\n\r\nhalf a fi',
      })),
    expect: (statuses) => statuses.every((s) => s === 422),
  },
  {
    name: 'generation',
    what: `${n(10, 2)} answers whose schema asks for 5,000,000 characters`,
    args: () => [
      '--spec',
      description('generation', {
        '/x': {
          get: {
            responses: {
              200: {
                description: 'big',
                content: { 'application/json': { schema: { type: 'string', minLength: 5_000_000 } } },
              },
            },
          },
        },
      }),
    ],
    run: (url) => send(url, n(10, 2), 2, () => ({ method: 'GET' })),
    expect: (statuses) => statuses.every((s) => s === 500),
  },
  {
    name: 'generation-bomb',
    what: 'one body of 300,000 items (seconds of CPU to make) while another client asks a cheap operation every 10 ms; its p99',
    args: () => ['--spec', description('generation-bomb', BOMB_PATHS)],
    run: async (url) => {
      const seen = await otherClientDuringBomb(url)
      Object.assign(bombSeen, seen)
      process.stderr.write(
        `[attack] generation-bomb: the body took ${Math.round(seen.ms)} ms; ${seen.pings} pings meanwhile, p99 ${seen.p99.toFixed(1)} ms\n`,
      )
      return seen.statuses
    },
    // The target is a p99 under 50 ms (#34); --quick, run by CI on a shared machine, asks only that the
    // other client was answered throughout, which a loop held by the generation fails.
    expect: (statuses) =>
      statuses.every((s) => s === 200) && bombSeen.pings >= 5 && bombSeen.p99 < (quick ? bombSeen.ms / 2 : 50),
  },
  {
    name: 'streams',
    what: `${n(500, 60)} SSE streams at once, 20 items 50 ms apart, a third of the clients leaving at random; descriptors and streams left after`,
    args: () => [
      '--spec',
      description('streams', {
        '/s': {
          get: {
            responses: {
              200: {
                description: 'events',
                content: {
                  'text/event-stream': { schema: { type: 'object', properties: { n: { type: 'integer' } } } },
                },
              },
            },
          },
        },
      }),
    ],
    run: async (url, server) => {
      const count = n(500, 60)
      const before = openFds(server)
      // The clients' own pool: closed after, so that the connections it keeps alive do not count as the mock's.
      const clients = new Agent({ connections: count })
      // Every third client leaves after 1 to 15 items, chosen by its number (the same each run).
      const statuses = await Promise.all(
        Array.from({ length: count }, (_, i) => readStream(url, i % 3 === 0 ? 1 + ((i * 7) % 15) : undefined, clients)),
      )
      await clients.close()
      // The mock ends a left stream at once; give the sockets a moment to close, then count what is left.
      await new Promise((resolve) => setTimeout(resolve, 1000))
      const listed = await (await fetch(`${url}/__mock/requests?limit=1000`)).json()
      streamsSeen.running = listed.requests.filter((r) => r.response?.stream?.ended === 'streaming').length
      streamsSeen.ended = listed.requests.map((r) => r.response?.stream?.ended)
      streamsSeen.fds = { before, after: openFds(server) }
      process.stderr.write(
        `[attack] streams: ${streamsSeen.running} left running, descriptors ${before} before and ${streamsSeen.fds.after} after\n`,
      )
      return statuses
    },
    expect: (statuses) =>
      statuses.every((s) => s === 200) &&
      streamsSeen.running === 0 &&
      streamsSeen.ended.every((e) => e === 'complete' || e === 'client closed') &&
      streamsSeen.fds.after <= streamsSeen.fds.before + 5,
  },
  {
    name: 'descriptors',
    what: '190 answers delayed 3 s at once under ulimit -n 160; meanwhile a fresh client asks for health and POSTs',
    launch: (args) => ['bash', ['-c', 'ulimit -n 160 && exec "$0" "$@"', process.execPath, ...args]],
    args: () => ['--spec', description('descriptors', { '/x': post({ type: 'object' }) })],
    run: async (url, server) => {
      followStderr(server)
      const held = send(url, 190, 190, () => ({
        ...json('{}'),
        headers: { 'content-type': 'application/json', prefer: 'delay=3000' },
      }))
      await sleep(1000)
      const started = performance.now()
      freshSeen.health = await probe(`${url}/__mock/health`)
      freshSeen.post = await probe(`${url}/x`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      })
      freshSeen.ms = Math.round(performance.now() - started)
      process.stderr.write(
        `[attack] descriptors: a fresh client got health ${freshSeen.health} and POST ${freshSeen.post} in ${freshSeen.ms} ms\n`,
      )
      return held
    },
    // Held to the cap the limit leaves; beyond it 503 with Retry-After, or closed at accept (0). The fresh
    // client is answered at once (under 1 s), and Node warns of no listener leak.
    expect: (statuses) =>
      statuses.filter((s) => s === 204).length > 0 &&
      statuses.every((s) => s === 204 || s === 503 || s === 0) &&
      freshSeen.health === 200 &&
      (freshSeen.post === 204 || freshSeen.post === 503) &&
      freshSeen.ms < 1000 &&
      !/MaxListenersExceededWarning|EMFILE/.test(stderrSeen.join('')),
  },
  {
    name: 'header-values',
    what: `${n(500, 50)} answers of a media type named beyond Latin-1, with a header example holding a control character`,
    args: () => ['--spec', description('header-values', unsendable)],
    run: (url, server) => {
      followStderr(server)
      return send(url, n(500, 50), 4, () => ({ path: '/n', method: 'GET' }))
    },
    // Each answered 200 (the name percent-encoded), none 500 "Invalid character in header content", no stack.
    expect: (statuses) => statuses.every((s) => s === 200) && stderrSeen.join('') === '',
  },
  {
    name: 'deep-body',
    what: `${n(50, 5)} JSON arrays nested 200,000 levels deep`,
    args: () => ['--spec', description('deep-body', { '/x': post({ type: 'object' }) })],
    run: async (url, server) => {
      followStderr(server)
      const deep = '['.repeat(200_000) + ']'.repeat(200_000)
      const statuses = await send(url, n(50, 5), 2, () => json(deep))
      const refused = await fetch(`${url}/x`, { ...json(deep), signal: AbortSignal.timeout(10_000) })
      deepSeen.message = (await refused.json()).message
      return [...statuses, refused.status]
    },
    // Refused naming where the limit is passed and the limit (it read "(1 problem): " alone).
    expect: (statuses) =>
      statuses.every((s) => s === 422) &&
      deepSeen.message.includes('body[0][0][0][0]…[0][0][0][0] opens level 257 of nesting at position 256') &&
      deepSeen.message.includes('the limit is 256 levels (--max-depth)') &&
      stderrSeen.join('') === '',
  },
  {
    name: 'journal-listing',
    what: `${n(3000, 300)} requests of 64 KiB bodies journaled (journal size 100000), then the journal listed`,
    args: () => ['--spec', description('journal', { '/x': post({ type: 'object' }) }), '--journal-size', '100000'],
    run: async (url) => [
      ...(await send(url, n(3000, 300), 8, () => json(`{"pad":"${'j'.repeat(64 * 1024)}"}`))),
      ...(await send(url, 1, 1, () => ({ path: '/__mock/requests?limit=1000' }))),
    ],
    expect: (statuses) => statuses.every((s) => s === 204 || s === 200),
  },
]

const results = []
try {
  for (const attack of ATTACKS.filter((a) => !args.only || a.name === args.only)) {
    const args = [...NODE_FLAGS, join(dist, 'cli.js'), '--port', '0', '--quiet', ...attack.args()]
    const [command, argv] = attack.launch?.(args) ?? [process.execPath, args]
    const loopFile = join(dir, `${attack.name}.loop-delay`)
    const server = await startServer(attack.name, command, argv, {
      cwd: dir,
      timeoutMs: 60_000,
      env: { NODE_OPTIONS: `--import=${LOOP_DELAY}`, LOOP_DELAY_FILE: loopFile },
    })
    // Start-up holds the loop too (the description is read); what counts is from the attack on.
    await longestLoopDelay(server, loopFile)
    let peak = rssMiB(server)
    const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(server))), 50)
    const started = performance.now()
    const statuses = await attack.run(server.url, server)
    const seconds = (performance.now() - started) / 1000
    clearInterval(sampler)
    const heldMs = await longestLoopDelay(server, loopFile)
    const alive = server.child.exitCode === null && (await probe(`${server.url}/__mock/health`)) === 200
    const counts = Object.entries(statuses.reduce((all, s) => ({ ...all, [s]: (all[s] ?? 0) + 1 }), {})).map(
      ([s, c]) => `${c}×${s === '0' ? 'none' : s}`,
    )
    results.push({
      name: attack.name,
      what: attack.what,
      answers: counts.join(' '),
      peakRssMiB: Math.round(peak),
      heldMs: Math.round(heldMs),
      seconds: Math.round(seconds * 10) / 10,
      alive,
      sound: alive && attack.expect(statuses),
    })
    await server.stop()
    process.stderr.write(
      `[attack] ${attack.name}: ${counts.join(' ')}, peak ${Math.round(peak)} MiB, loop held ${Math.round(heldMs)} ms at most, ${seconds.toFixed(1)} s, ${alive ? 'alive' : 'DEAD'}\n`,
    )
  }
} finally {
  await killAll()
  rmSync(dir, { recursive: true, force: true })
}
if (args.json) console.log(JSON.stringify(results))
else {
  console.log(`node ${process.version} · ${quick ? 'quick' : 'full'} · ${dist}`)
  console.log(
    table(
      ['attack', 'what', 'answers', 'peak RSS MiB', 'loop held ms', 's', 'alive', 'sound'],
      results.map((r) => [
        r.name,
        r.what,
        r.answers,
        r.peakRssMiB,
        r.heldMs,
        r.seconds,
        r.alive ? 'yes' : 'NO',
        r.sound ? 'yes' : 'NO',
      ]),
    ),
  )
}
process.exitCode = results.every((r) => r.sound) ? 0 : 1
