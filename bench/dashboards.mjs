// What open dashboards cost the valid path under load (#29): `npm run bench -- --dashboards 20`.
//
// The issue's bound is "no slowdown on the valid path beyond 2 % of CPU per request with 20 open
// dashboards under load". Counted by callgrind (`--instructions --dashboards 20`), valgrind runs the
// mock some 50 times slower while the feed still batches every 100 ms of the wall clock, so a batch
// holds some 50 requests instead of thousands, and the per-batch work (a write to each stream) weighs
// 50 times more on each request than under a real load. This bench measures it under load instead:
//
// - two mocks, `--quiet`: `none` with no stream open, and `dashboards` with N journal streams open
//   as the dashboard opens them (`GET /__mock/requests/stream?view=summary`), each read to the end by
//   this process, which counts the events and the entries they carry;
// - rounds of autocannon (10 connections, S seconds, valid POST /plants) on each in turn, the CPU
//   seconds of each server's process read from /proc before and after, so each row is CPU per answered
//   request; the median over the rounds is compared, and the spread between rounds shown (the machine
//   is shared: a round's own noise is the floor of what can be told apart);
// - how many entries an event carried under that load (what a batch holds).
//
// Every load is bounded in time; the streams are destroyed and the servers killed on the way out.
import { request } from 'node:http'
import { join } from 'node:path'
import { cpuSeconds, load, median, probe, startServer, table } from './harness.mjs'

/**
 * `{ rounds, seconds, dashboards }` → CPU µs per request of each mock, their ratio, and the entries an
 * event carried. `target` is the valid request.
 */
export async function dashboardsUnderLoad({ root, target, rounds = 5, seconds = 5, dashboards = 20, fmt }) {
  console.log(
    `\n## ${dashboards} open dashboards under load: CPU per valid request, ${rounds} rounds × ${seconds} s, 10 connections`,
  )
  const start = (name) =>
    startServer(name, process.execPath, [join(root, 'dist/cli.js'), '--port', '0', '--quiet'], { cwd: root })
  const servers = [await start('none'), await start('dashboards')]
  const streams = []
  const read = { events: 0, entries: 0 }
  try {
    for (const server of servers) {
      const status = await probe(server.url + target.path, target)
      if (status !== 200) throw new Error(`${server.name}: the valid request answered ${status}`)
    }
    for (let i = 0; i < dashboards; i++) streams.push(await openStream(servers[1].url, i === 0 ? read : undefined))
    const perRequest = { none: [], dashboards: [] }
    for (let round = 0; round < rounds; round++)
      for (const server of round % 2 ? [...servers].reverse() : servers) {
        const before = cpuSeconds(server)
        const result = await load(server, target, { connections: 10, seconds })
        const cpu = cpuSeconds(server) - before
        const answered = result['2xx']
        if (answered === 0 || result.non2xx) throw new Error(`${server.name}: ${result.non2xx} answers were not 2xx`)
        perRequest[server.name].push((cpu * 1e6) / answered)
      }
    const none = median(perRequest.none)
    const open = median(perRequest.dashboards)
    const spread = (values) =>
      `${fmt.one((Math.min(...values) / median(values) - 1) * 100)} % to +${fmt.one((Math.max(...values) / median(values) - 1) * 100)} %`
    console.log(
      table(
        ['mock', 'CPU µs/request (median)', 'rounds', 'spread'],
        [
          ['no stream open', fmt.one(none), perRequest.none.map((v) => fmt.one(v)).join(' '), spread(perRequest.none)],
          [
            `${dashboards} dashboards`,
            fmt.one(open),
            perRequest.dashboards.map((v) => fmt.one(v)).join(' '),
            spread(perRequest.dashboards),
          ],
        ],
      ),
    )
    const entriesPerEvent = read.events ? read.entries / read.events : 0
    console.log(
      `With ${dashboards} dashboards: ${fmt.one((open / none - 1) * 100)} % CPU per request; an event carried ${fmt.one(entriesPerEvent)} entries on average (${read.events} events read by one stream).`,
    )
    return { none, dashboards: open, ratio: open / none, perRequest, entriesPerEvent }
  } finally {
    for (const stream of streams) stream.destroy()
    await Promise.all(servers.map((server) => server.stop()))
  }
}

/** One dashboard's stream, read throughout; `counts` (for one of them) gets its events and entries. */
function openStream(url, counts) {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/__mock/requests/stream?view=summary`, { timeout: 60_000 }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`journal stream answered ${res.statusCode}`))
      // Only the counting reader decodes: the others discard what they read, as cheaply as they can.
      if (!counts) return resolve(res.resume() && req)
      res.setEncoding('utf8')
      let rest = ''
      res.on('data', (text) => {
        rest += text
        let end
        while ((end = rest.indexOf('\n\n')) !== -1) {
          const event = rest.slice(0, end)
          rest = rest.slice(end + 2)
          const data = /^data: (.*)$/m.exec(event)
          if (!event.includes('event: summaries') || !data) continue
          counts.events++
          counts.entries += JSON.parse(data[1]).length
        }
      })
      resolve(req)
    })
    req.on('timeout', () => req.destroy(new Error('no journal stream within 60 s')))
    req.on('error', (error) => (error.code === 'ECONNRESET' ? undefined : reject(error)))
    req.end()
  })
}
