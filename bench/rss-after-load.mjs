#!/usr/bin/env node
// RSS of the mock before and after 10 s of valid POST /plants (50 connections, --quiet), with V8's
// default young generation and with smaller semi-spaces, in alternating order (#19: RSS ≤ 100 MB).
//
//   node bench/rss-after-load.mjs        (needs dist/: npm run build)
//
// Each variant is a fresh process on 127.0.0.1; RSS is read from /proc (Linux). Bounded: five
// variants × (2 s start + 10 s load), every process killed after its turn.
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'

const cli = join(dirname(fileURLToPath(import.meta.url)), '../dist/cli.js')
const rssMiB = (pid) => Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)[1]) / 1024
const cpuSeconds = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}
const VARIANTS = [
  ['semi-space 4 MiB', ['--max-semi-space-size=4']],
  ['default', []],
  ['semi-space 8 MiB', ['--max-semi-space-size=8']],
  ['default', []],
  ['semi-space 4 MiB', ['--max-semi-space-size=4']],
]

for (const [name, flags] of VARIANTS) {
  const child = spawn(process.execPath, [...flags, cli, '--quiet', '--port', '0'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  })
  try {
    const port = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the mock did not start within 10 s')), 10_000)
      child.stdout.on('data', (data) => {
        const found = /http:\/\/127\.0\.0\.1:(\d+)/.exec(String(data))
        if (found) (clearTimeout(timer), resolve(Number(found[1])))
      })
    })
    await new Promise((resolve) => setTimeout(resolve, 2000))
    const idle = rssMiB(child.pid)
    const cpuBefore = cpuSeconds(child.pid)
    const result = await autocannon({
      url: `http://127.0.0.1:${port}/plants`,
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer bench-token' },
      body: JSON.stringify({ id: 1, name: 'Fern', tag: 'houseplant' }),
      connections: 50,
      duration: 10,
    })
    const micros = ((cpuSeconds(child.pid) - cpuBefore) * 1e6) / result.requests.total
    console.log(
      `${name.padEnd(18)} idle ${idle.toFixed(1)} MiB  after 10 s ${rssMiB(child.pid).toFixed(1)} MiB  ${Math.round(result.requests.average)} req/s  ${micros.toFixed(1)} µs of CPU a request`,
    )
  } finally {
    child.kill()
  }
}
