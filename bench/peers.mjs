// The peers of issue #19 in `npm run bench -- --peers`: the valid request of the Plant Store (POST /plants
// with `Authorization: Bearer …` and a valid NewPlant body, as run.mjs's valid path sends it) against our
// mock and the mock servers its users would otherwise pick, each set up as its own users set it up, in
// one run, under the same autocannon load:
//
// - mock: dist/cli.js with default options (a request line per request on stdout), as run.mjs starts it.
// - bare: bench/bare-server.mjs, the node:http reference of every other ratio of the bench.
// - prism: @stoplight/prism-cli, the project's devDependency, `prism mock openapi.yaml`, as run.mjs starts it.
// - mockoon: @mockoon/cli started straight from openapi.yaml, with `--disable-log-to-file` as Mockoon's own
//   Docker image runs it (every request is still logged to stdout, as JSON).
// - wiremock: the standalone jar that the npm package `wiremock` ships, run with `java -jar`, with the stub
//   mapping of bench/peers/wiremock/mappings/ (POST /plants → 200 and a Plant); WireMock does not read
//   OpenAPI descriptions. Its JVM gets a longer warm-up than the Node servers, for the JIT, after which its
//   request journal (every request, by default) is emptied.
// - scalar: @scalar/mock-server's createMockServer served by @hono/node-server, as Scalar's documentation
//   sets it up in Node (bench/peers/scalar-mock.mjs). Its package asks for Node ≥ 22; a start that fails on
//   this Node shows in its row, with the reason, instead of figures.
//
// The peers are not the project's dependencies: bench/peers/package.json pins them, with its lock, and
// they are installed on demand with `npm ci` into .cache/peers/ (again only when the lock changes).
// Every server is started once, on 127.0.0.1 with a port the OS picks (port 0, read from the server's
// "listening on" line or, for Mockoon and WireMock, which do not print it, from its listening socket in
// /proc), asked once with the valid request (status, and whether the body is a JSON object) and once
// without Authorization (does it check the credential?), warmed up, then measured in rounds, the order
// rotating by round. Rows are medians over the rounds; × bare is the median of the per-round ratio.
import { spawn, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { request } from 'node:http'
import { dirname, join, relative, resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { adoptChild, groupPids, load, median, rssMiB, sleep, startServer, stopChild, table } from './harness.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const peersDir = join(root, 'bench/peers')
const cacheDir = join(root, '.cache/peers')
const SPEC = join(root, 'openapi.yaml')
const PRISM_DIR = join(root, 'node_modules/@stoplight/prism-cli')
const WIREMOCK_ROOT = join(cacheDir, 'wiremock')

const TARGET = {
  method: 'POST',
  path: '/plants',
  headers: { 'content-type': 'application/json', authorization: 'Bearer bench-token' },
  body: JSON.stringify({ id: 1, name: 'Fern', tag: 'houseplant' }),
}
const NO_AUTH = { ...TARGET, headers: { 'content-type': 'application/json' } }

/**
 * Warm-up before the rounds, in loads of 5 s, in units of run.mjs's warm-up (1 s; 0.5 s with --quick).
 * A Node server: at least 10 s and 20,000 requests (Prism, Mockoon and Scalar answer a few hundred to two
 * thousand a second, so a fixed few seconds gave them a few thousand requests), at most 40 s. The JVM:
 * 120 s, because WireMock's throughput kept rising for 60 to 100 s of load here (its JIT), from about
 * 2,000 to over 20,000 requests a second; 30 s left it at half its later rate.
 */
const WARMUP = {
  node: { minSeconds: 10, minRequests: 20_000, maxSeconds: 40 },
  jvm: { minSeconds: 120, minRequests: 20_000, maxSeconds: 120 },
}
const WARMUP_LOAD_SECONDS = 5
const START_TIMEOUT_MS = 120_000
const INSTALL_TIMEOUT_MS = 600_000

const rel = (path) => relative(root, path) || '.'
const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'))
const sha256 = (...parts) => {
  const hash = createHash('sha256')
  for (const part of parts) hash.update(part)
  return hash.digest('hex')
}

// ---------------------------------------------------------------------------------------------
// Install on demand

/**
 * `npm ci` of bench/peers/package.json and its lock into .cache/peers/, unless the packages there were
 * installed from the same two files. Then the Scalar runner beside them, where its imports resolve.
 */
export function installPeers() {
  const manifest = readFileSync(join(peersDir, 'package.json'))
  const lock = readFileSync(join(peersDir, 'package-lock.json'))
  const digest = sha256(manifest, lock)
  const marker = join(cacheDir, 'installed.sha256')
  const installed =
    existsSync(join(cacheDir, 'node_modules')) && existsSync(marker) && readFileSync(marker, 'utf8') === digest
  if (!installed) {
    mkdirSync(cacheDir, { recursive: true })
    rmSync(marker, { force: true })
    writeFileSync(join(cacheDir, 'package.json'), manifest)
    writeFileSync(join(cacheDir, 'package-lock.json'), lock)
    console.log(`> npm ci in ${rel(cacheDir)} (bench/peers/package-lock.json)`)
    // --loglevel=error: the EBADENGINE warnings of Scalar's packages (Node ≥ 22) are reported in its row.
    const ran = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: cacheDir,
      stdio: 'inherit',
      timeout: INSTALL_TIMEOUT_MS,
    })
    if (ran.status !== 0)
      throw new Error(`npm ci in ${rel(cacheDir)} failed (${ran.error?.message ?? ran.signal ?? ran.status})`)
    writeFileSync(marker, digest)
  }
  copyFileSync(join(peersDir, 'scalar-mock.mjs'), join(cacheDir, 'scalar-mock.mjs'))
  // WireMock's root folder, which it writes to (an empty __files/ at least): a copy of the committed one.
  rmSync(WIREMOCK_ROOT, { recursive: true, force: true })
  cpSync(join(peersDir, 'wiremock'), WIREMOCK_ROOT, { recursive: true })
}

// ---------------------------------------------------------------------------------------------
// Servers that print no "listening on" line: spawned here, their port read from /proc

/** /proc/net/tcp{,6} local addresses that are loopback, as URL hosts. */
const LOOPBACK = {
  '0100007F': '127.0.0.1',
  '0000000000000000FFFF00000100007F': '127.0.0.1', // ::ffff:127.0.0.1, as the JVM binds 127.0.0.1
  '00000000000000000000000001000000': '[::1]',
}

/** TCP sockets in LISTEN that a process of the group holds: `[{ port, host }]`, host undefined off loopback. */
function listeningSockets(pgid) {
  const inodes = new Set()
  for (const pid of groupPids(pgid)) {
    let fds = []
    try {
      fds = readdirSync(`/proc/${pid}/fd`)
    } catch {}
    for (const fd of fds) {
      try {
        const socket = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))
        if (socket) inodes.add(socket[1])
      } catch {}
    }
  }
  const found = new Map()
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let lines = []
    try {
      lines = readFileSync(file, 'utf8').split('\n').slice(1)
    } catch {}
    for (const line of lines) {
      const fields = line.trim().split(/\s+/)
      if (fields.length < 10 || fields[3] !== '0A' || !inodes.has(fields[9])) continue
      const [address, port] = fields[1].split(':')
      found.set(parseInt(port, 16), { address, host: LOOPBACK[address] })
    }
  }
  return [...found].map(([port, { address, host }]) => ({ port, address, host }))
}

/**
 * Spawns a server that listens on the port the OS picks but does not print it, in its own process
 * group; its one listening socket, from /proc, gives the URL once a request gets any answer.
 * Resolves `{ name, pid, url, spawnedAt, output, stop() }` like harness.startServer.
 */
async function spawnPeer(name, command, args, { cwd = root, timeoutMs = START_TIMEOUT_MS } = {}) {
  const env = { ...process.env }
  delete env.HOST
  delete env.PORT
  const spawnedAt = performance.now()
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  adoptChild(child)
  const output = []
  const keep = (chunk) => {
    // Always drained (Mockoon logs every request); only the last lines are kept, for error messages.
    output.push(...chunk.toString('utf8').split('\n').filter(Boolean))
    if (output.length > 40) output.splice(0, output.length - 40)
  }
  child.stdout.on('data', keep)
  child.stderr.on('data', keep)
  let spawnError
  child.once('error', (error) => (spawnError = error))
  const server = { name, pid: child.pid, child, spawnedAt, url: undefined, output, stop: () => stopChild(child) }
  const fail = async (message) => {
    await server.stop()
    throw new Error(`${name}: ${message}\n${output.slice(-20).join('\n')}`)
  }
  for (;;) {
    if (spawnError) return fail(spawnError.message)
    if (child.exitCode !== null || child.signalCode !== null)
      return fail(`exited (${child.signalCode ?? child.exitCode}) before listening`)
    const sockets = listeningSockets(child.pid)
    const outside = sockets.find((s) => !s.host)
    if (outside) return fail(`listens beyond loopback (port ${outside.port}, address ${outside.address})`)
    if (sockets.length > 1) return fail(`listens on ${sockets.length} ports (${sockets.map((s) => s.port).join(', ')})`)
    if (sockets.length === 1) {
      const url = `http://${sockets[0].host}:${sockets[0].port}`
      if ((await exchange(url, TARGET)).status !== 0) {
        server.url = url
        return server
      }
    }
    if (performance.now() - spawnedAt > timeoutMs) return fail(`not listening within ${timeoutMs} ms`)
    await sleep(100)
  }
}

/** One request on its own connection: `{ status, body }`, status 0 on a connection error or a 5 s timeout. */
function exchange(url, { method, path, headers, body }) {
  return new Promise((done) => {
    const req = request(
      url + path,
      {
        method,
        headers: { ...headers, 'content-length': Buffer.byteLength(body ?? ''), connection: 'close' },
        agent: false,
        timeout: 5000,
      },
      (res) => {
        const chunks = []
        res.on('data', (chunk) => chunks.push(chunk))
        res.on('end', () => done({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }))
        res.on('error', () => done({ status: 0, body: '' }))
      },
    )
    req.on('timeout', () => req.destroy())
    req.on('error', () => done({ status: 0, body: '' }))
    req.end(body)
  })
}

function isJsonObject(text) {
  try {
    const value = JSON.parse(text)
    return value !== null && typeof value === 'object' && !Array.isArray(value)
  } catch {
    return false
  }
}

/** Loads of a few seconds until the server has had its minimum time and requests, or its maximum time. */
async function warmUp(server, { minSeconds, minRequests, maxSeconds }, { connections, unit }) {
  const loadSeconds = WARMUP_LOAD_SECONDS * unit
  let seconds = 0
  let requests = 0
  const rates = []
  while (seconds < maxSeconds * unit && (seconds < minSeconds * unit || requests < minRequests * unit)) {
    const result = await load(server, TARGET, { connections, seconds: loadSeconds })
    seconds += loadSeconds
    requests += result.requests.total
    rates.push(result.requests.average)
  }
  return { seconds, requests, rates, loadSeconds }
}

async function resetWireMockJournal(server) {
  const reset = await exchange(server.url, { method: 'DELETE', path: '/__admin/requests', headers: {}, body: '' })
  return reset.status === 200
    ? 'request journal emptied (DELETE /__admin/requests: 200)'
    : `request journal NOT emptied (DELETE /__admin/requests: ${reset.status})`
}

// ---------------------------------------------------------------------------------------------
// The servers: versions read from what is installed, commands as the bench runs them

function gitHead() {
  const ran = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8', timeout: 10_000 })
  return ran.status === 0 ? ran.stdout.trim() : undefined
}

function javaVersion() {
  const ran = spawnSync('java', ['-version'], { encoding: 'utf8', timeout: 30_000 })
  const first = `${ran.stderr ?? ''}${ran.stdout ?? ''}`.split('\n')[0]
  const match = /^(\S+) version "([^"]+)"/.exec(first)
  return match ? `${match[1]} ${match[2]}` : first.trim() || 'java not found'
}

/** What the table needs of each server, and how to start it; `unavailable` when it cannot be. */
function serverSpecs() {
  const node = process.execPath
  const modules = join(cacheDir, 'node_modules')
  const head = gitHead()
  const builtAt = statSync(join(root, 'dist/cli.js')).mtime.toISOString().slice(0, 16).replace('T', ' ')
  const specs = [
    {
      name: 'mock',
      // dist/ may be rebuilt by anyone between runs: its time says which build this row measured.
      version: `${readJson(join(root, 'package.json')).version}, dist/ of ${builtAt}${head ? `, HEAD ${head}` : ''}`,
      command: 'node dist/cli.js --port 0',
      setup: 'plant-store-mock with default options: a request line per request on stdout, the journal on.',
      warmup: WARMUP.node,
      start: () => startServer('mock', node, [join(root, 'dist/cli.js'), '--port', '0'], { cwd: root }),
    },
    {
      name: 'bare',
      version: `node ${process.version}`,
      command: 'node bench/bare-server.mjs --port 0',
      setup: 'node:http by hand: reads and parses the body, checks the bearer header and NewPlant, fixed JSON.',
      warmup: WARMUP.node,
      start: () => startServer('bare', node, [join(root, 'bench/bare-server.mjs'), '--port', '0'], { cwd: root }),
    },
  ]

  const prismBin = join(PRISM_DIR, 'dist/index.js')
  specs.push({
    name: 'prism',
    version: existsSync(prismBin) ? `@stoplight/prism-cli ${readJson(join(PRISM_DIR, 'package.json')).version}` : '',
    command: 'prism mock openapi.yaml -p 0 -h 127.0.0.1',
    setup: "Prism's mock mode on the description, default options (it logs every request).",
    warmup: WARMUP.node,
    unavailable: existsSync(prismBin) ? undefined : 'not installed (npm ci in the project installs it)',
    start: () =>
      startServer('prism', node, [prismBin, 'mock', SPEC, '-p', '0', '-h', '127.0.0.1'], {
        cwd: root,
        timeoutMs: START_TIMEOUT_MS,
      }),
  })

  const mockoonDir = join(modules, '@mockoon/cli')
  specs.push({
    name: 'mockoon',
    version: `@mockoon/cli ${readJson(join(mockoonDir, 'package.json')).version}`,
    command: 'mockoon-cli start --data openapi.yaml --port 0 --hostname 127.0.0.1 --disable-log-to-file',
    setup:
      'Mockoon CLI started from the OpenAPI file (converted to a Mockoon environment at start); --disable-log-to-file as its Docker image runs it, each request still logged to stdout as JSON; admin API on (default).',
    warmup: WARMUP.node,
    start: () =>
      spawnPeer('mockoon', node, [
        join(mockoonDir, readJson(join(mockoonDir, 'package.json')).bin['mockoon-cli']),
        'start',
        '--data',
        SPEC,
        '--port',
        '0',
        '--hostname',
        '127.0.0.1',
        '--disable-log-to-file',
      ]),
  })

  const wiremockDir = join(modules, 'wiremock')
  const jar = readdirSync(join(wiremockDir, 'build')).find((name) => /^wiremock-standalone-.+\.jar$/.test(name))
  const java = javaVersion()
  specs.push({
    name: 'wiremock',
    version: `wiremock ${readJson(join(wiremockDir, 'package.json')).version} (npm jar) on ${java}`,
    command: `java -jar ${jar} --port 0 --bind-address 127.0.0.1 --root-dir ${rel(WIREMOCK_ROOT)} --disable-banner`,
    setup: `WireMock standalone, default JVM and options (request journal on, no per-request log), with one stub mapping (bench/peers/wiremock/mappings/, copied to ${rel(WIREMOCK_ROOT)}): POST /plants → 200, a Plant as JSON; it does not read the description, so it validates nothing. Warmed up ${WARMUP.jvm.minSeconds} s (its JIT), then its request journal emptied (DELETE /__admin/requests, as a test suite resets it): by default it keeps every request, and the warm-up's would otherwise weigh on the rounds; the rounds' own still grow it.`,
    afterWarmUp: resetWireMockJournal,
    warmup: WARMUP.jvm,
    unavailable: jar ? undefined : `no standalone jar in ${rel(join(wiremockDir, 'build'))}`,
    start: () =>
      spawnPeer('wiremock', 'java', [
        '-jar',
        join(wiremockDir, 'build', jar),
        '--port',
        '0',
        '--bind-address',
        '127.0.0.1',
        '--root-dir',
        WIREMOCK_ROOT,
        '--disable-banner',
      ]),
  })

  const scalar = readJson(join(modules, '@scalar/mock-server/package.json'))
  const honoServer = readJson(join(modules, '@hono/node-server/package.json'))
  specs.push({
    name: 'scalar',
    version: `@scalar/mock-server ${scalar.version}, @hono/node-server ${honoServer.version}`,
    command: 'node scalar-mock.mjs openapi.yaml',
    setup: `@scalar/mock-server's createMockServer on the description, served by @hono/node-server (bench/peers/scalar-mock.mjs, as Scalar's documentation does it), no request log; its package asks for node ${scalar.engines?.node ?? 'any'}, run here on ${process.version}.`,
    warmup: WARMUP.node,
    start: () =>
      startServer('scalar', node, [join(cacheDir, 'scalar-mock.mjs'), SPEC], {
        cwd: cacheDir,
        timeoutMs: START_TIMEOUT_MS,
      }),
  })
  return specs
}

// ---------------------------------------------------------------------------------------------

/**
 * Installs the peers, starts every server, probes and warms each up, then rounds of each in turn.
 * `measure(server, target, seconds)` is run.mjs's (CPU and RSS from /proc around an autocannon load).
 */
export async function peersCompare({ settings, measure, fmt }) {
  const { rounds, seconds, connections } = settings
  installPeers()
  const specs = serverSpecs()
  console.log(
    `\n## Peers (#19): valid POST /plants · ${specs.map((s) => s.name).join(', ')} · ${rounds} round(s) × ${seconds} s · ${connections} connections · node ${process.version}`,
  )
  const live = []
  /** runs[name][round] = one measurement; probes[name] = { valid, validJsonObject, noAuth }. */
  const runs = Object.fromEntries(specs.map((s) => [s.name, []]))
  const probes = {}
  try {
    for (const spec of specs) {
      if (spec.unavailable) {
        console.log(`  ${spec.name}: ${spec.unavailable}`)
        continue
      }
      let server
      try {
        server = await spec.start()
      } catch (error) {
        spec.unavailable = `did not start: ${String(error.message).split('\n')[0]}`
        spec.startOutput = String(error.message).split('\n').slice(1)
        console.log(`  ${spec.name}: ${error.message}`)
        continue
      }
      server.spec = spec
      live.push(server)
      const valid = await exchange(server.url, TARGET)
      const noAuth = await exchange(server.url, NO_AUTH)
      probes[spec.name] = {
        valid: valid.status,
        validJsonObject: isJsonObject(valid.body),
        validBody: valid.body.slice(0, 200),
        noAuth: noAuth.status,
        rssIdle: rssMiB(server), // started and asked twice, before any load
      }
      console.log(
        `  ${spec.name.padEnd(8)} ${server.url}  start ${fmt.int(performance.now() - server.spawnedAt)} ms  valid ${valid.status} ${JSON.stringify(valid.body.slice(0, 80))}  no auth ${noAuth.status}`,
      )
    }
    for (const server of live) {
      const warm = await warmUp(server, server.spec.warmup, { connections, unit: settings.warmupSeconds })
      console.log(
        `  warmed up ${server.name.padEnd(8)} ${warm.seconds} s, ${fmt.int(warm.requests)} requests (req/s by ${warm.loadSeconds} s: ${warm.rates.map(fmt.int).join(' → ')})`,
      )
      server.spec.warmedUp = warm
      if (server.spec.afterWarmUp) {
        warm.after = await server.spec.afterWarmUp(server)
        console.log(`  ${server.name}: ${warm.after}`)
      }
    }
    for (let round = 0; round < rounds; round++) {
      // Rotate who goes first, so that no server always follows the same one's load.
      const order = live.map((_, i) => live[(i + round) % live.length])
      for (const server of order) {
        const m = await measure(server, TARGET, seconds)
        runs[server.name][round] = m
        process.stdout.write(
          `  round ${round + 1} ${server.name.padEnd(8)} ${fmt.int(m.rps).padStart(7)} req/s  p99 ${fmt.ms(m.p99)} ms  CPU ${fmt.one(m.cpuMicrosPerRequest)} µs/req  RSS ${fmt.one(m.rss)} MiB  ${m.statusSummary}\n`,
        )
      }
    }
  } finally {
    await Promise.all(live.map((server) => server.stop()))
  }

  const measured = (name) => runs[name].length === rounds
  const perRound = (name, over, metric) => median(runs[name].map((m, round) => m[metric] / runs[over][round][metric]))
  const rows = specs.map((spec) => {
    const ms = runs[spec.name]
    const probe = probes[spec.name]
    if (!measured(spec.name) || !probe)
      return [
        spec.name,
        spec.version,
        'n/a',
        '',
        'n/a',
        'n/a',
        'n/a',
        'n/a',
        spec.unavailable ?? 'not measured',
        '',
        '',
        spec.command,
      ]
    const med = (metric) => median(ms.map((m) => m[metric]))
    const underLoad = [...new Set(ms.flatMap((m) => m.statuses))]
    const loadNote = underLoad.length === 1 && underLoad[0] === probe.valid ? '' : ` (load: ${underLoad.join('/')})`
    return [
      spec.name,
      spec.version,
      fmt.int(med('rps')),
      spec.name === 'bare' ? '1.00' : perRound(spec.name, 'bare', 'rps').toFixed(2),
      fmt.ms(med('p99')),
      fmt.one(med('cpuMicrosPerRequest')),
      fmt.one(med('rss')),
      fmt.one(probe.rssIdle),
      `${probe.valid}${probe.validJsonObject ? ', JSON object' : ', not a JSON object'}${loadNote}`,
      String(probe.noAuth),
      probe.noAuth === 401 ? 'yes' : 'no',
      spec.command,
    ]
  })
  console.log(
    `\nMedians over ${rounds} round(s) of ${seconds} s; × bare = median of the per-round req/s ratio to bare; RSS after each load, and idle (started, before the warm-up), of the whole process group (for WireMock the JVM).\n`,
  )
  console.log(
    table(
      [
        'server',
        'version',
        'req/s',
        '× bare',
        'p99 ms',
        'CPU µs/req',
        'RSS MiB',
        'RSS idle MiB',
        'status (valid)',
        'status (no auth)',
        'checks auth',
        'command',
      ],
      rows,
    ),
  )
  console.log('\nSet-up:')
  for (const spec of specs) console.log(`  ${spec.name}: ${spec.setup}`)

  // Issue #19: higher throughput and lower p99 than every peer, per round, then the median.
  const peers = specs.filter((s) => !['mock', 'bare'].includes(s.name))
  const verdicts = peers.map((spec) => {
    if (!measured('mock') || !measured(spec.name))
      return { peer: spec.name, measured: false, reason: spec.unavailable ?? 'not measured' }
    const rps = perRound('mock', spec.name, 'rps')
    const p99 = perRound('mock', spec.name, 'p99')
    return { peer: spec.name, measured: true, rpsRatio: rps, p99Ratio: p99, throughput: rps > 1, latency: p99 < 1 }
  })
  console.log('\nThe mock against each peer (median of the per-round ratio mock ÷ peer):')
  for (const v of verdicts) {
    if (!v.measured) {
      console.log(`  ${v.peer.padEnd(8)} not measured: ${v.reason}`)
      continue
    }
    console.log(
      `  ${v.peer.padEnd(8)} req/s ${v.rpsRatio.toFixed(2)}× (${v.throughput ? 'higher' : 'LOWER'})  p99 ${v.p99Ratio.toFixed(2)}× (${v.latency ? 'lower' : 'HIGHER'})`,
    )
  }
  const missed = verdicts.filter((v) => v.measured && !(v.throughput && v.latency)).map((v) => v.peer)
  const unmeasured = verdicts.filter((v) => !v.measured).map((v) => v.peer)
  console.log(
    `\nIssue #19 (higher req/s and lower p99 than every peer): ${missed.length ? `MISSED against ${missed.join(', ')}` : 'MET against every peer measured'}${unmeasured.length ? `; not measured: ${unmeasured.join(', ')}` : ''}`,
  )
  return {
    settings,
    request: TARGET,
    servers: specs.map(({ name, version, command, setup, unavailable, startOutput, warmedUp }) => ({
      name,
      version,
      command,
      setup,
      unavailable,
      startOutput,
      warmedUp,
      probe: probes[name],
    })),
    runs,
    rows,
    verdicts,
  }
}
