// Streamed answers (#31 §2): `npm run bench -- --streams`. What a streamed item costs the mock in CPU,
// and how soon the first item comes, against a bare node:http server writing the same events, in one run.
//
// - bare: this file as a child (`node bench/streams.mjs --child --port 0`), a node:http server that
//   answers GET /events with N `id:`/`data:` events of a fixed JSON item, each written as soon as the
//   socket takes it, then `data: [DONE]`;
// - mock: `node dist/cli.js test/descriptions/streams.yaml --quiet`, GET /events with
//   `Prefer: stream-items=N, stream-interval=0` (the same framing, items made from the item schema).
// Each round: C streams at once, each read to its end; the CPU seconds of each server (from /proc)
// over the items sent is the CPU per item; the time from the request to the first chunk is the time to
// first byte (median and p99 over the streams). Servers alternate within a round; the medians of the
// rounds are compared. Bounded: each stream times out after 30 s.
import { createServer } from 'node:http'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { Agent, fetch } from 'undici'
import { cpuSeconds, median, startServer, table } from './harness.mjs'

const ITEM = JSON.stringify({ token: 'Hello', index: 0 })

if (process.argv.includes('--child')) {
  const { values } = parseArgs({
    options: { child: { type: 'boolean' }, port: { type: 'string', default: '0' } },
    strict: false,
  })
  const server = createServer((req, res) => {
    const n = Number(/stream-items=(\d+)/.exec(req.headers.prefer ?? '')?.[1] ?? 3)
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    let i = 0
    const next = () => {
      while (i < n) {
        i++
        if (!res.write(`id: ${i}\ndata: ${ITEM}\n\n`)) return void res.once('drain', next)
      }
      res.end('data: [DONE]\n\n')
    }
    next()
  })
  server.listen(Number(values.port), '127.0.0.1', () =>
    console.log(`bare listening on http://127.0.0.1:${server.address().port}`),
  )
}

/** Streams of each server: CPU µs per item, time to first byte, items per stream checked. */
export async function streamsCompare({ root, rounds = 3, streams = 50, items = 200, fmt }) {
  console.log(
    `\n## Streamed answers: ${streams} SSE streams at once of ${items} items (no pause), ${rounds} rounds; CPU per item and time to first byte`,
  )
  const spec = join(root, 'test/descriptions/streams.yaml')
  const servers = [
    await startServer('bare', process.execPath, [join(root, 'bench/streams.mjs'), '--child', '--port', '0'], {
      cwd: root,
    }),
    await startServer('mock', process.execPath, [join(root, 'dist/cli.js'), spec, '--port', '0', '--quiet'], {
      cwd: root,
    }),
  ]
  const results = { bare: { cpu: [], ttfb: [], p99: [] }, mock: { cpu: [], ttfb: [], p99: [] } }
  try {
    for (let round = 0; round < rounds; round++)
      for (const server of round % 2 ? [...servers].reverse() : servers) {
        const agent = new Agent({ connections: streams })
        const before = cpuSeconds(server)
        const timings = await Promise.all(Array.from({ length: streams }, () => readOne(server.url, items, agent)))
        const cpu = cpuSeconds(server) - before
        await agent.close()
        const ttfb = timings.map((t) => t.ttfb).sort((a, b) => a - b)
        results[server.name].cpu.push((cpu * 1e6) / (streams * items))
        results[server.name].ttfb.push(median(ttfb))
        results[server.name].p99.push(ttfb[Math.min(ttfb.length - 1, Math.ceil(0.99 * ttfb.length) - 1)])
      }
  } finally {
    await Promise.all(servers.map((server) => server.stop()))
  }
  const row = (name) => [
    name,
    fmt.one(median(results[name].cpu)),
    fmt.ms(median(results[name].ttfb)),
    fmt.ms(median(results[name].p99)),
  ]
  console.log(
    table(['server', 'CPU µs per item', 'first byte, median ms', 'first byte, p99 ms'], [row('bare'), row('mock')]),
  )
  const ratio = median(results.mock.cpu) / median(results.bare.cpu)
  console.log(`mock × bare, CPU per item: ${ratio.toFixed(2)}`)
  return { ...results, ratio }
}

/** One stream read to its end: its time to first byte (ms); throws unless it held `items` items and [DONE]. */
async function readOne(url, items, dispatcher) {
  const started = performance.now()
  const response = await fetch(`${url}/events`, {
    headers: { prefer: `stream-items=${items}, stream-interval=0` },
    dispatcher,
    signal: AbortSignal.timeout(30_000),
  })
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  let ttfb
  let text = ''
  for (;;) {
    const { value, done } = await reader.read()
    if (done) break
    ttfb ??= performance.now() - started
    text += decoder.decode(value, { stream: true })
  }
  const count = (text.match(/^id: /gm) ?? []).length
  if (count !== items || !text.includes('data: [DONE]')) throw new Error(`a stream held ${count} items of ${items}`)
  return { ttfb }
}
