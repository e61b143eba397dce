// Process and load plumbing shared by the bench modes: spawning servers on OS-chosen loopback
// ports, reading their CPU and RSS from /proc, bounded autocannon runs, and killing every child.
import { execFileSync, spawn } from 'node:child_process'
import { readFileSync, readdirSync } from 'node:fs'
import { request } from 'node:http'
import { performance } from 'node:perf_hooks'
import autocannon from 'autocannon'

const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100
  } catch {
    return 100
  }
})()

/** Every child still alive; `killAll` and the exit hook below end them. */
const children = new Set()

/**
 * Spawns a server in its own process group and waits for the line naming its loopback URL.
 * Resolves `{ name, pid, url, spawnedAt, stop() }`; rejects (after killing it) on exit or timeout.
 */
export function startServer(name, command, args, { cwd, timeoutMs = 60_000, env } = {}) {
  const childEnv = { ...process.env, ...env }
  delete childEnv.HOST // the mock reads HOST/PORT; the bench decides both
  delete childEnv.PORT
  const spawnedAt = performance.now()
  const child = spawn(command, args, { cwd, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  const server = { name, pid: child.pid, child, spawnedAt, url: undefined, output: [], stop: () => stopChild(child) }
  children.add(child)
  child.once('exit', () => children.delete(child))
  return new Promise((resolve, reject) => {
    let buffered = ''
    const fail = (message) => {
      clearTimeout(timer)
      stopChild(child).finally(() => reject(new Error(`${name}: ${message}\n${server.output.slice(-20).join('\n')}`)))
    }
    const timer = setTimeout(() => fail(`no "listening on" line within ${timeoutMs} ms`), timeoutMs)
    const onData = (chunk) => {
      // Always drained, so that a chatty server (Prism logs every request) never blocks on a full pipe.
      if (server.url) return
      buffered += chunk.toString('utf8')
      const lines = buffered.split('\n')
      buffered = lines.pop()
      for (const raw of lines) {
        const line = raw.replace(/\x1b\[[0-9;]*m/g, '')
        server.output.push(line)
        const match = /listening on (http:\/\/(?:127\.0\.0\.1|\[::1\]):\d+)/.exec(line)
        if (match) {
          server.url = match[1]
          clearTimeout(timer)
          resolve(server)
          return
        }
      }
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.once('error', (error) => fail(error.message))
    child.once('exit', (code, signal) => server.url || fail(`exited (${signal ?? code}) before listening`))
  })
}

/** A child spawned elsewhere (a peer that prints no "listening on" line): killed with the others on the way out. */
export function adoptChild(child) {
  children.add(child)
  child.once('exit', () => children.delete(child))
}

/** SIGTERM to the child's group, SIGKILL after 3 s; resolves on its exit, or after 6 s whatever happens. */
export function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    const hard = setTimeout(() => killGroup(child, 'SIGKILL'), 3000)
    const giveUp = setTimeout(resolve, 6000) // an exit event that never comes must not hang the bench
    child.once('exit', () => {
      clearTimeout(hard)
      clearTimeout(giveUp)
      killGroup(child, 'SIGKILL') // anything the child left behind in its group
      resolve()
    })
    killGroup(child, 'SIGTERM')
  })
}

function killGroup(child, signal) {
  try {
    process.kill(-child.pid, signal)
  } catch {
    try {
      child.kill(signal)
    } catch {}
  }
}

export async function killAll() {
  await Promise.all([...children].map(stopChild))
}

process.once('exit', () => {
  for (const child of children) killGroup(child, 'SIGKILL')
})
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(signal, () => {
    process.stderr.write(`\n${signal}: stopping the servers\n`)
    killAll().finally(() => process.exit(130))
  })
}

/** Sends one request; resolves its status (or 0 on a connection error). */
export function probe(url, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve) => {
    const req = request(
      url,
      { method, headers: { ...headers, connection: 'close' }, agent: false, timeout: 2000 },
      (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode))
        res.on('error', () => resolve(0))
      },
    )
    req.on('timeout', () => req.destroy())
    req.on('error', () => resolve(0))
    req.end(body)
  })
}

/** Milliseconds from spawn to the first 200 of `target`, polling every 5 ms. */
export async function timeToFirst200(server, target, { timeoutMs = 60_000 } = {}) {
  const deadline = server.spawnedAt + timeoutMs
  for (;;) {
    const status = await probe(server.url + target.path, target)
    if (status === 200) return performance.now() - server.spawnedAt
    if (performance.now() > deadline)
      throw new Error(
        `${server.name}: no 200 for ${target.method} ${target.path} within ${timeoutMs} ms (last status ${status})`,
      )
    await sleep(5)
  }
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

function procStats(pid) {
  // Fields after the ")" that ends comm: state(3) ppid(4) pgrp(5) ... utime(14) stime(15).
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
  return { pgrp: Number(fields[2]), ticks: Number(fields[11]) + Number(fields[12]) }
}

/** Processes of the child's group (the child and anything it forked); the child's own pid when none is found. */
export function groupPids(pgid) {
  const pids = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (procStats(entry).pgrp === pgid) pids.push(entry)
    } catch {} // gone meanwhile
  }
  return pids.length ? pids : [String(pgid)]
}

/** User + system CPU seconds of the server's process group so far. */
export function cpuSeconds(server) {
  let ticks = 0
  for (const pid of groupPids(server.pid)) {
    try {
      ticks += procStats(pid).ticks
    } catch {}
  }
  return ticks / CLK_TCK
}

/** Resident memory of the server's process group, in MiB. */
export function rssMiB(server) {
  let kib = 0
  for (const pid of groupPids(server.pid)) {
    try {
      kib += Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0)
    } catch {}
  }
  return kib / 1024
}

/**
 * One autocannon run, bounded: stopped if it outlives its duration by 15 s.
 * `target` is `{ method, path, headers, body }` or `{ requests: [...] }` for a rotating set.
 */
export function load(server, target, { connections = 50, seconds = 5 } = {}) {
  return new Promise((resolve, reject) => {
    const options = {
      url: server.url + (target.path ?? '/'),
      connections,
      duration: seconds,
      timeout: 10,
      method: target.method,
      headers: target.headers,
      body: target.body,
      requests: target.requests,
    }
    let watchdog
    // autocannon's histogram keeps whole milliseconds; a loopback server answers in less, so the
    // bench keeps every response time itself (floats, in ms) and takes its percentiles from those.
    const times = new LatencyLog()
    const instance = autocannon(options, (error, result) => {
      clearTimeout(watchdog)
      if (error) return reject(error)
      result.exactLatency = times.percentiles([50, 99])
      resolve(result)
    })
    instance.on('response', (_client, _status, _bytes, responseTime) => times.add(responseTime))
    watchdog = setTimeout(
      () => {
        instance.stop()
        reject(new Error(`${server.name}: autocannon did not finish within ${seconds + 15} s`))
      },
      (seconds + 15) * 1000,
    )
  })
}

class LatencyLog {
  #chunks = [new Float64Array(1 << 16)]
  #used = 0
  add(ms) {
    let chunk = this.#chunks.at(-1)
    if (this.#used === chunk.length) {
      chunk = new Float64Array(1 << 16)
      this.#chunks.push(chunk)
      this.#used = 0
    }
    chunk[this.#used++] = ms
  }
  /** Nearest-rank percentiles, e.g. `{ p50, p99 }`. */
  percentiles(ranks) {
    const all = new Float64Array((this.#chunks.length - 1) * (1 << 16) + this.#used)
    this.#chunks.forEach((chunk, i) =>
      all.set(i === this.#chunks.length - 1 ? chunk.subarray(0, this.#used) : chunk, i * (1 << 16)),
    )
    all.sort()
    const out = {}
    for (const rank of ranks)
      out[`p${rank}`] = all.length
        ? all[Math.min(all.length - 1, Math.ceil((rank / 100) * all.length) - 1)]
        : Number.NaN
    return out
  }
}

/** Autocannon's status counts as `200×1234 400×5`. */
export function statusSummary(result) {
  const stats = result.statusCodeStats ?? {}
  const parts = Object.entries(stats).map(([code, { count }]) => `${code}×${count}`)
  if (result.errors) parts.push(`err×${result.errors}`)
  if (result.timeouts) parts.push(`timeout×${result.timeouts}`)
  return parts.join(' ')
}

/** The status codes autocannon saw, most frequent first. */
export function statusesOf(result) {
  return Object.entries(result.statusCodeStats ?? {})
    .sort((a, b) => b[1].count - a[1].count)
    .map(([code]) => Number(code))
}

export function median(values) {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b)
  if (!sorted.length) return Number.NaN
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/** Renders rows (arrays of strings) as an aligned text table; numeric-looking cells align right. */
export function table(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)))
  const line = (cells) =>
    cells
      .map((c, i) =>
        /^[\d.,×()\s-]+$|^n\/a$/.test(String(c)) ? String(c).padStart(widths[i]) : String(c).padEnd(widths[i]),
      )
      .join('  ')
      .trimEnd()
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n')
}
