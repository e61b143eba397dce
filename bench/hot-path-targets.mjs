// The targets of issue #19 ("The hot path at the limit"), judged on one comparison run of
// bench/run.mjs: for each of the four paths, the mock with default options (request lines, journal
// and CORS on) against bare node:http and Prism in the same rounds. Ratios are medians of per-round
// ratios, as in the comparison table.
//
// - req/s ≥ 0.85 × bare, and ≥ 15 × Prism (where Prism ran);
// - p99 ≤ 2 × bare; the mock's CPU a request ≤ 1.3 × bare's;
// - RSS ≤ 100 MiB at the end of each path's load (the issue reads it after 60 s of load: the soak,
//   `npm run bench -- --soak`, holds it that long; this is the RSS of a shorter run).
// The stateful, rules and proxy targets are their own modes' (--stateful, --rules, --proxy).

/** @typedef {{ rps: number, p99: number, cpuMicrosPerRequest: number, rss: number }} Measurement */

export const HOT_PATH_TARGETS = { rpsToBare: 0.85, rpsToPrism: 15, p99ToBare: 2, cpuToBare: 1.3, rssMiB: 100 }

/**
 * One row a target and path: [path, target, value, MET/MISSED]. `ratioOf(server, path, metric)` is the
 * comparison's median per-round ratio of `server` to bare; `runs` holds its measurements.
 */
export function hotPathTargets({ paths, runs, ratioOf, median, prism }) {
  const t = HOT_PATH_TARGETS
  const rows = []
  const judge = (path, target, value, within, format) =>
    rows.push([path.label, target, format(value), Number.isFinite(value) ? (within(value) ? 'MET' : 'MISSED') : 'n/a'])
  const times = (x) => `${x.toFixed(2)} ×`
  for (const path of paths) {
    const mock = runs.mock[path.key]
    judge(path, `req/s ≥ ${t.rpsToBare} × bare`, ratioOf('mock', path.key, 'rps'), (x) => x >= t.rpsToBare, times)
    if (prism) {
      const toPrism = median(mock.map((m, round) => m.rps / runs.prism[path.key][round].rps))
      judge(path, `req/s ≥ ${t.rpsToPrism} × Prism`, toPrism, (x) => x >= t.rpsToPrism, times)
    }
    judge(path, `p99 ≤ ${t.p99ToBare} × bare`, ratioOf('mock', path.key, 'p99'), (x) => x <= t.p99ToBare, times)
    const cpu = ratioOf('mock', path.key, 'cpuMicrosPerRequest')
    judge(path, `CPU a request ≤ ${t.cpuToBare} × bare`, cpu, (x) => x <= t.cpuToBare, times)
    const rss = Math.max(...mock.map((m) => m.rss))
    judge(
      path,
      `RSS ≤ ${t.rssMiB} MiB`,
      rss,
      (x) => x <= t.rssMiB,
      (x) => `${x.toFixed(1)} MiB`,
    )
  }
  return rows
}
