#!/usr/bin/env node
// RSS after the load of issue #34 §5: 30 s of valid POST /plants (bearer, valid body, 50 connections),
// each server as users start it, with no node flags: bare node:http, the Hono + Ajv reference, the
// mock with default flags and with --quiet, and the mock with --workers 2 (its primary and each worker).
//
//   node bench/rss-after-load.mjs [--seconds 30] [--rounds 1]      (needs dist/: npm run build)
//
// RSS is read from /proc (Linux) when idle (2 s after "listening"), at its peak (every 250 ms during
// the load) and right after the load. Each server is a fresh process on 127.0.0.1, killed after its
// turn; a round is five turns of (2 + seconds) s.
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '30' }, rounds: { type: 'string', default: '1' } },
})
const seconds = Number(values.seconds)

const SERVERS = [
  ['bare node:http', ['bench/bare-server.mjs', '--port', '0']],
  ['hono + ajv', ['bench/hono-ajv-server.mjs', '--port', '0']],
  ['mock', ['dist/cli.js', '--port', '0']],
  ['mock --quiet', ['dist/cli.js', '--port', '0', '--quiet']],
  ['mock --workers 2', ['dist/cli.js', '--port', '0', '--workers', '2']],
]

const rssMiB = (pid) => {
  try {
    return Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)[1]) / 1024
  } catch {
    return 0 // gone
  }
}
/** The process and its children (`--workers`: the primary, then each worker). */
const family = (pid) => {
  let children = []
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
  } catch {
    // no children file: the process alone
  }
  return [pid, ...children]
}

async function turn(name, args) {
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] })
  try {
    const port = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${name} did not start within 15 s`)), 15_000)
      child.stdout.on('data', (data) => {
        const found = /http:\/\/127\.0\.0\.1:(\d+)/.exec(String(data))
        if (found) (clearTimeout(timer), resolve(Number(found[1])))
      })
    })
    child.stdout.resume()
    await new Promise((resolve) => setTimeout(resolve, 2000))
    const pids = family(child.pid)
    const idle = pids.map(rssMiB)
    const peak = [...idle]
    const sampler = setInterval(() => pids.forEach((pid, i) => (peak[i] = Math.max(peak[i], rssMiB(pid)))), 250)
    const result = await autocannon({
      url: `http://127.0.0.1:${port}/plants`,
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer bench-token' },
      body: JSON.stringify({ id: 1, name: 'Fern', tag: 'houseplant' }),
      connections: 50,
      duration: seconds,
    })
    clearInterval(sampler)
    const after = pids.map(rssMiB)
    const mib = (list) => list.map((n) => n.toFixed(1)).join(' / ')
    const errors = result.non2xx + result.errors
    console.log(
      `${name.padEnd(17)} idle ${mib(idle).padEnd(18)} peak ${mib(peak).padEnd(18)} after ${seconds} s ${mib(after).padEnd(18)} ${String(Math.round(result.requests.average)).padStart(6)} req/s${errors ? `  ${errors} not 2xx or failed` : ''}`,
    )
  } finally {
    child.kill()
  }
}

console.log(
  `RSS MiB after ${seconds} s of valid POST /plants, 50 connections, no node flags` +
    ` (--workers 2: primary / worker / worker)`,
)
for (let round = 0; round < Number(values.rounds); round++) for (const [name, args] of SERVERS) await turn(name, args)
