// CPU per recorded request in the journal, alone: node bench/journal-record.mjs <dist folder>
// (e.g. dist, or another build's dist to compare). 7 rounds of 300,000 records; prints min and median
// ns per record. Found the #12 regression: an extra field on the spread record, 1.0 → 2.1 µs.
const dist = new URL(process.argv[2] ?? 'dist', `file://${process.cwd()}/`).pathname.replace(/\/$/, '')
const { createJournal } = await import(`${dist}/journal/journal.js`)
const headers = {
  host: '127.0.0.1:4010',
  'content-type': 'application/json',
  authorization: 'Bearer x',
  'content-length': '27',
}
const body = new TextEncoder().encode('{"id": 1, "name": "Fern"}')
function record(i) {
  return {
    time: Date.now(),
    method: 'POST',
    path: '/plants',
    query: '',
    operation: 'addPlant',
    headers,
    body,
    status: 200,
    scenario: 'default',
    valid: true,
    violations: [],
    durationMs: 0.1,
  }
}
const results = []
for (let round = 0; round < 7; round++) {
  const j = createJournal(1000)
  const n = 300_000
  const t0 = process.cpuUsage()
  for (let i = 0; i < n; i++) j.recordRequest(record(i))
  const t = process.cpuUsage(t0)
  results.push(((t.user + t.system) / n) * 1000)
}
results.sort((a, b) => a - b)
console.log(dist, 'ns/record min', results[0].toFixed(0), 'median', results[3].toFixed(0))
