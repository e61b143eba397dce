import type { CoverageReport, EventCoverage, OperationCoverage, ResponseCoverage } from './coverage-report.js'

/**
 * The files `--coverage-report DIR` writes (#29), made from the report alone: `coverage.json`,
 * `coverage.md` (a GitHub step summary), `junit.xml` (one test case per operation × declared status,
 * failed when never exercised) and `coverage.html` (self-contained, every value escaped).
 */
export function renderCoverageFiles(report: CoverageReport, title: string): Record<string, string> {
  return {
    'coverage.json': `${JSON.stringify(report, null, 2)}\n`,
    'coverage.md': renderMarkdown(report, title),
    'junit.xml': renderJunit(report, title),
    'coverage.html': renderHtml(report, title),
  }
}

/** One row per operation × declared status: its media types' counts added up. */
interface StatusRow {
  operation: OperationCoverage
  status: string
  answered: number
  forced: number
  invalid: number
}

function statusRows(report: CoverageReport): StatusRow[] {
  const rows: StatusRow[] = []
  for (const operation of report.operations) {
    const byStatus = new Map<string, StatusRow>()
    for (const response of operation.responses) {
      const row = byStatus.get(response.status) ?? {
        operation,
        status: response.status,
        answered: 0,
        forced: 0,
        invalid: 0,
      }
      row.answered += response.answered
      row.forced += response.forced
      row.invalid += response.invalid
      byStatus.set(response.status, row)
    }
    rows.push(...byStatus.values())
  }
  return rows
}

const percent = ({ exercised, total }: { exercised: number; total: number }) =>
  total === 0 ? '100 %' : `${Math.floor((1000 * exercised) / total) / 10} %`

export function renderMarkdown(report: CoverageReport, title: string): string {
  const { summary } = report
  const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/[\r\n]+/g, ' ')
  const lines = [
    `## API coverage: ${cell(title)}`,
    '',
    `Operations ${summary.operations.exercised}/${summary.operations.total} (${percent(summary.operations)}), ` +
      `statuses ${summary.statuses.exercised}/${summary.statuses.total} (${percent(summary.statuses)}), ` +
      `responses ${summary.responses.exercised}/${summary.responses.total} (${percent(summary.responses)}); ` +
      `${summary.requests} requests, ${summary.invalid} invalid, ${summary.unmatched} unmatched, since ${report.since}.`,
    ...(summary.bodies.total + summary.rules.total + summary.events.total === 0 ? [] : ['', otherRatios(summary)]),
    '',
    '| operation | status | answered | forced | invalid |',
    '|---|---|---|---|---|',
    ...statusRows(report).map(
      (row) =>
        `| ${cell(`${row.operation.method} ${row.operation.path}`)} (\`${cell(row.operation.operation)}\`) | ${row.status} | ` +
        `${row.answered === 0 ? '**never**' : row.answered} | ${row.forced} | ${row.invalid} |`,
    ),
  ]
  const unusedBodies = neverServed(report)
  if (unusedBodies.length) {
    lines.push('', '| fixture or example never served | operation | status |', '|---|---|---|')
    for (const { operation, status, body } of unusedBodies)
      lines.push(`| ${body.origin} \`${cell(body.name)}\` | \`${cell(operation)}\` | ${cell(status)} |`)
  }
  if (report.rules.length) {
    lines.push('', '| stub or rule | answered |', '|---|---|')
    for (const { rule, hits } of report.rules) lines.push(`| ${cell(rule)} | ${hits === 0 ? '**never**' : hits} |`)
  }
  if (report.events.length) {
    lines.push('', '| callback or webhook | sent | delivered | conformed | undelivered |', '|---|---|---|---|---|')
    for (const event of report.events)
      lines.push(
        `| ${cell(eventName(event))} | ${event.sent === 0 ? '**never**' : event.sent} | ${event.delivered} | ${event.conformed} | ${event.undelivered} |`,
      )
  }
  if (report.unmatched.length) {
    lines.push('', '| unmatched request | count | nearest |', '|---|---|---|')
    for (const miss of report.unmatched)
      lines.push(`| ${cell(`${miss.method} ${miss.path}`)} | ${miss.count} | ${cell(miss.nearest?.join(', ') ?? '')} |`)
  }
  return `${lines.join('\n')}\n`
}

/** The ratios past the operations', where the description or the mock has any to count. */
function otherRatios({ bodies, rules, events }: CoverageReport['summary']): string {
  const parts: string[] = []
  if (bodies.total) parts.push(`fixtures and examples served ${bodies.exercised}/${bodies.total} (${percent(bodies)})`)
  if (rules.total) parts.push(`stubs and rules that answered ${rules.exercised}/${rules.total} (${percent(rules)})`)
  if (events.total) parts.push(`callbacks and webhooks sent ${events.exercised}/${events.total} (${percent(events)})`)
  return `${parts.join(', ')}.`.replace(/^./, (first) => first.toUpperCase())
}

/** The fixtures and examples no answer served, with where they are declared. */
function neverServed(report: CoverageReport) {
  const unused: Array<{ operation: string; status: string; body: NonNullable<ResponseCoverage['bodies']>[number] }> = []
  for (const operation of report.operations)
    for (const response of operation.responses)
      for (const body of response.bodies ?? [])
        if (body.answered === 0) unused.push({ operation: operation.operation, status: response.status, body })
  return unused
}

function eventName(event: EventCoverage): string {
  const name = event.kind === 'callback' ? `${event.operation} callback ${event.name}` : `webhook ${event.name}`
  return event.undeclared ? `${name} (not declared)` : name
}

function xml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .replace(/[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd]/gu, '\ufffd')
}

/**
 * One suite of operation × declared status, and where the description declares callbacks or webhooks,
 * a second with one case each, failed when it was never sent.
 */
export function renderJunit(report: CoverageReport, title: string): string {
  const rows = statusRows(report)
  const operationCases = rows.map((row) =>
    testCase(
      row.operation.operation,
      `${row.operation.method} ${row.operation.path} ${row.status}`,
      row.answered > 0 ? undefined : 'was never answered',
    ),
  )
  const declaredEvents = report.events.filter((event) => !event.undeclared)
  const eventCases = declaredEvents.map((event) =>
    testCase(event.operation ?? 'webhooks', eventName(event), event.sent > 0 ? undefined : 'was never sent'),
  )
  const suites = [suite(title, report.since, operationCases)]
  if (eventCases.length) suites.push(suite(`${title}: callbacks and webhooks`, report.since, eventCases))
  const tests = operationCases.length + eventCases.length
  const failures = [...operationCases, ...eventCases].filter((c) => c.failed).length
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="API coverage" tests="${tests}" failures="${failures}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n')
}

interface TestCase {
  xml: string
  failed: boolean
}

function testCase(classname: string, name: string, failure: string | undefined): TestCase {
  const head = `    <testcase classname="${xml(classname)}" name="${xml(name)}" time="0"`
  if (failure === undefined) return { xml: `${head}/>`, failed: false }
  return {
    xml: `${head}>\n      <failure message="never exercised">${xml(name)} (${xml(classname)}) ${failure}</failure>\n    </testcase>`,
    failed: true,
  }
}

function suite(name: string, since: string, cases: TestCase[]): string {
  const failures = cases.filter((c) => c.failed).length
  return [
    `  <testsuite name="${xml(name)}" tests="${cases.length}" failures="${failures}" errors="0" skipped="0" timestamp="${xml(since)}">`,
    ...cases.map((c) => c.xml),
    '  </testsuite>',
  ].join('\n')
}

function html(text: string | number): string {
  return String(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;')
}

function statusClass(status: string): string {
  return /^[1-5]/.test(status) ? `s${status[0]}` : 'sd'
}

function responseCell(response: ResponseCoverage): string {
  const label = `${response.status}${response.mediaType ? ` ${response.mediaType}` : ''}`
  const state = response.answered === 0 ? 'never' : 'hit'
  const forced = response.forced ? `, ${response.forced} forced` : ''
  return `<td class="${statusClass(response.status)} ${state}">${html(label)}: ${response.answered === 0 ? 'never' : html(response.answered)}${html(forced)}</td>`
}

function listSection(heading: string, items: string[]): string {
  if (items.length === 0) return ''
  return `<h2>${html(heading)}</h2>\n<ul>\n${items.map((item) => `<li>${html(item)}</li>`).join('\n')}\n</ul>`
}

export function renderHtml(report: CoverageReport, title: string): string {
  const { summary } = report
  const rows = report.operations.map(
    (operation) =>
      `<tr><th scope="row">${html(operation.method)} ${html(operation.path)}<br><small>${html(operation.operation)}</small></th>` +
      `<td>${html(operation.requests)}</td>${operation.responses.map(responseCell).join('')}` +
      (operation.undeclared.length
        ? `<td class="undeclared">undeclared: ${operation.undeclared.map((u) => `${html(u.status)} × ${html(u.answered)}`).join(', ')}</td>`
        : '') +
      '</tr>',
  )
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API coverage: ${html(title)}</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5rem; color: #1b1b1b; background: #fff; }
table { border-collapse: collapse; } th, td { border: 1px solid #ccc; padding: .3rem .5rem; text-align: left; vertical-align: top; }
.never { background: #fde2e1; } .hit.s2 { background: #dcf5dc; } .hit.s3 { background: #e1ecfd; } .hit.s4 { background: #fff1cc; } .hit.s5 { background: #f9d7d7; } .hit.sd { background: #eee; }
.undeclared { color: #7a4b00; }
@media (prefers-color-scheme: dark) { body { color: #eee; background: #161616; } th, td { border-color: #555; } .never { background: #5a1f1f; } .hit.s2 { background: #1f4a1f; } .hit.s3 { background: #1f304f; } .hit.s4 { background: #4f401a; } .hit.s5 { background: #4f1f1f; } .hit.sd { background: #333; } .undeclared { color: #f0c070; } }
</style>
</head>
<body>
<h1>API coverage: ${html(title)}</h1>
<p>Operations ${summary.operations.exercised}/${summary.operations.total} (${percent(summary.operations)}), statuses ${summary.statuses.exercised}/${summary.statuses.total} (${percent(summary.statuses)}), responses ${summary.responses.exercised}/${summary.responses.total} (${percent(summary.responses)}); ${summary.requests} requests, ${summary.invalid} invalid, ${summary.unmatched} unmatched, since ${html(report.since)}.</p>
<table>
<thead><tr><th scope="col">operation</th><th scope="col">requests</th><th scope="col" colspan="99">declared responses</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>
${summary.bodies.total + summary.rules.total + summary.events.total ? `<p>${html(otherRatios(summary))}</p>` : ''}
${listSection(
  'Fixtures and examples never served',
  neverServed(report).map(({ operation, status, body }) => `${body.origin} ${body.name} (${operation} ${status})`),
)}
${listSection(
  'Stubs and rules',
  report.rules.map(({ rule, hits }) => `${rule}: ${hits === 0 ? 'never' : hits}`),
)}
${listSection(
  'Callbacks and webhooks',
  report.events.map(
    (event) =>
      `${eventName(event)}: ${event.sent === 0 ? 'never sent' : `${event.sent} sent, ${event.delivered} delivered, ${event.conformed} as declared`}`,
  ),
)}
${
  report.unmatched.length
    ? `<h2>Requests that matched no operation</h2>\n<ul>\n${report.unmatched
        .map(
          (miss) =>
            `<li>${html(miss.method)} ${html(miss.path)} × ${html(miss.count)}${miss.nearest?.length ? ` (nearest: ${html(miss.nearest.join(', '))})` : ''}</li>`,
        )
        .join('\n')}\n</ul>`
    : ''
}
</body>
</html>
`
}
