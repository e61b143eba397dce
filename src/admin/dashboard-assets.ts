/**
 * The dashboard's page, style and script (`GET /__mock/`), kept here as text: the core reads no
 * files, and the page needs no build step. Plain DOM, no framework; three responses, so that a strict
 * Content-Security-Policy (no inline script or style) holds. Every value the script shows goes
 * through `textContent`. Edit the text below as the HTML, CSS and JavaScript it is: it holds no
 * backquote and no `${`, so it is served exactly as written.
 */

export const DASHBOARD_HTML = String.raw`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>plant-store-mock dashboard</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="dashboard/dashboard.css" />
    <script type="module" src="dashboard/dashboard.js"></script>
  </head>
  <body>
    <header>
      <h1>plant-store-mock</h1>
      <span id="stream-state" role="status">Journal: connecting</span>
      <button id="theme" type="button" aria-pressed="false">Dark theme</button>
    </header>
    <nav aria-label="Views">
      <button id="show-journal" type="button">Journal</button>
      <button id="show-coverage" type="button">Coverage</button>
      <button id="show-scenarios" type="button">Scenarios</button>
      <button id="show-stubs" type="button">Stubs</button>
      <button id="show-state" type="button">State</button>
      <button id="show-deliveries" type="button">Deliveries</button>
    </nav>
    <p id="message" role="status" aria-live="polite"></p>
    <form id="token-form" hidden aria-labelledby="token-title">
      <h2 id="token-title">Admin token</h2>
      <p>This mock runs with <code>--admin-token</code>. The token is kept in this tab only (sessionStorage).</p>
      <label for="token">Admin token</label>
      <input id="token" type="password" autocomplete="off" required />
      <button type="submit">Use token</button>
    </form>
    <main>
      <section id="view-journal" aria-labelledby="journal-title">
        <h2 id="journal-title">Live journal</h2>
        <form class="filters" aria-label="Journal filters">
          <label>Operation <select id="filter-operation"><option value="">any</option></select></label>
          <label>Status <input id="filter-status" size="5" placeholder="4xx" /></label>
          <label>Session <input id="filter-session" size="10" /></label>
          <label
            >Validity
            <select id="filter-valid">
              <option value="">any</option>
              <option value="true">valid</option>
              <option value="false">invalid</option>
            </select></label
          >
          <button id="journal-clear" type="button">Empty the journal</button>
        </form>
        <p id="journal-count"></p>
        <ol id="journal-list" class="journal" aria-label="Requests, newest first"></ol>
      </section>
      <section id="view-coverage" aria-labelledby="coverage-title" hidden>
        <h2 id="coverage-title">Coverage</h2>
        <button id="coverage-refresh" type="button">Refresh</button>
        <div id="coverage-body"></div>
      </section>
      <section id="view-scenarios" aria-labelledby="scenarios-title" hidden>
        <h2 id="scenarios-title">Scenarios</h2>
        <form id="scenario-form" class="row">
          <label>Session (X-Mock-Session; empty: clients without one) <input id="scenario-session" /></label>
          <button id="scenario-load" type="button">Show</button>
          <label>Scenario <select id="scenario-name"></select></label>
          <button type="submit">Switch</button>
        </form>
        <p id="scenario-active"></p>
        <h3>Rule hits</h3>
        <ul id="scenario-hits"></ul>
      </section>
      <section id="view-stubs" aria-labelledby="stubs-title" hidden>
        <h2 id="stubs-title">Stubs</h2>
        <p><span id="stub-count"></span> <button id="stubs-refresh" type="button">Refresh</button></p>
        <div class="scroll">
          <table>
            <caption>Runtime stubs, oldest first</caption>
            <thead>
              <tr><th scope="col">Id</th><th scope="col">Operation</th><th scope="col">Status</th><th scope="col">Hits</th><th scope="col">Session</th><th scope="col">When</th><th scope="col">Action</th></tr>
            </thead>
            <tbody id="stub-rows"></tbody>
          </table>
        </div>
        <form id="stub-form">
          <label for="stub-json">New stub (JSON, as POST /__mock/stubs takes it)</label>
          <textarea id="stub-json" rows="6" spellcheck="false">{"operation": "addPlant", "status": 400, "times": 1}</textarea>
          <button type="submit">Add stub</button>
        </form>
      </section>
      <section id="view-state" aria-labelledby="state-title" hidden>
        <h2 id="state-title">Stateful records</h2>
        <p class="row">
          <button id="state-refresh" type="button">Refresh</button>
          <button id="reset-all" type="button">Reset everything (scenario, journal, stubs, data to its seed)</button>
        </p>
        <div id="state-body"></div>
      </section>
      <section id="view-deliveries" aria-labelledby="deliveries-title" hidden>
        <h2 id="deliveries-title">Callbacks and webhooks</h2>
        <form id="webhook-form">
          <h3>Send a webhook</h3>
          <label>Webhook name <input id="webhook-name" required placeholder="/plant/webhook" /></label>
          <label>To (URL; empty: the session's target or --webhook-url) <input id="webhook-to" type="url" /></label>
          <label for="webhook-body">Body (JSON; empty: the webhook's example)</label>
          <textarea id="webhook-body" rows="3" spellcheck="false"></textarea>
          <button type="submit">Send webhook</button>
        </form>
        <p><span id="delivery-count"></span> <button id="deliveries-refresh" type="button">Refresh</button></p>
        <div class="scroll">
          <table>
            <caption>Deliveries, newest first</caption>
            <thead>
              <tr><th scope="col">Id</th><th scope="col">Time</th><th scope="col">Kind</th><th scope="col">Name</th><th scope="col">Operation</th><th scope="col">Target</th><th scope="col">Outcome</th><th scope="col">Attempts</th></tr>
            </thead>
            <tbody id="delivery-rows"></tbody>
          </table>
        </div>
      </section>
    </main>
  </body>
</html>
`

export const DASHBOARD_CSS = String.raw`:root {
  color-scheme: light dark;
  --bg: #ffffff;
  --fg: #1b1f23;
  --muted: #57606a;
  --line: #d0d7de;
  --panel: #f6f8fa;
  --accent: #0550ae;
  --s2: #dafbe1;
  --s3: #ddf4ff;
  --s4: #fff1c2;
  --s5: #ffd7d5;
  --never: #eaeef2;
  font: 14px/1.45 system-ui, -apple-system, 'Segoe UI', sans-serif;
}
@media (prefers-color-scheme: dark) {
  :root:not([data-theme='light']) {
    --bg: #0d1117;
    --fg: #e6edf3;
    --muted: #9da7b3;
    --line: #30363d;
    --panel: #161b22;
    --accent: #79c0ff;
    --s2: #0f3d1f;
    --s3: #0c2d4f;
    --s4: #4b3a05;
    --s5: #5c1a17;
    --never: #21262d;
  }
}
:root[data-theme='dark'] {
  --bg: #0d1117;
  --fg: #e6edf3;
  --muted: #9da7b3;
  --line: #30363d;
  --panel: #161b22;
  --accent: #79c0ff;
  --s2: #0f3d1f;
  --s3: #0c2d4f;
  --s4: #4b3a05;
  --s5: #5c1a17;
  --never: #21262d;
  color-scheme: dark;
}
:root[data-theme='light'] {
  color-scheme: light;
}
body {
  margin: 0;
  background: var(--bg);
  color: var(--fg);
}
header,
nav,
main,
#message,
#token-form {
  padding: 0 1rem;
}
header {
  display: flex;
  gap: 1rem;
  align-items: center;
  border-bottom: 1px solid var(--line);
}
header h1 {
  font-size: 1.2rem;
  margin: 0.6rem 0;
}
#stream-state {
  color: var(--muted);
  flex: 1;
}
nav {
  display: flex;
  flex-wrap: wrap;
  gap: 0.3rem;
  padding-top: 0.5rem;
  padding-bottom: 0.5rem;
  border-bottom: 1px solid var(--line);
}
button,
input,
select,
textarea {
  font: inherit;
  color: inherit;
  background: var(--panel);
  border: 1px solid var(--line);
  border-radius: 4px;
  padding: 0.25rem 0.6rem;
}
button {
  cursor: pointer;
}
nav button[aria-current='page'] {
  background: var(--accent);
  color: var(--bg);
  border-color: var(--accent);
}
:focus-visible {
  outline: 3px solid var(--accent);
  outline-offset: 2px;
}
a {
  color: var(--accent);
}
textarea {
  display: block;
  width: 100%;
  max-width: 60rem;
  box-sizing: border-box;
  font-family: ui-monospace, monospace;
  margin: 0.3rem 0;
}
label {
  margin-right: 0.6rem;
}
.row,
.filters {
  display: flex;
  flex-wrap: wrap;
  gap: 0.5rem;
  align-items: center;
}
#message.error {
  color: #d1242f;
  font-weight: 600;
}
.muted {
  color: var(--muted);
}
.journal {
  list-style: none;
  padding: 0;
  font-family: ui-monospace, monospace;
  font-size: 13px;
}
.journal li {
  border-bottom: 1px solid var(--line);
}
.journal summary {
  padding: 0.2rem 0;
  cursor: pointer;
  display: flex;
  gap: 0.5rem;
  flex-wrap: wrap;
}
.path {
  overflow-wrap: anywhere;
}
.badge {
  display: inline-block;
  padding: 0 0.4rem;
  border-radius: 3px;
  border: 1px solid var(--line);
}
.s2xx {
  background: var(--s2);
}
.s3xx {
  background: var(--s3);
}
.s4xx,
.invalid {
  background: var(--s4);
}
.s5xx,
.s0 {
  background: var(--s5);
}
.entry {
  padding: 0.3rem 0 0.6rem 1rem;
}
.block h4 {
  margin: 0.4rem 0 0.1rem;
  font-size: 0.9rem;
}
pre {
  margin: 0;
  padding: 0.4rem;
  background: var(--panel);
  border: 1px solid var(--line);
  max-height: 20rem;
  overflow: auto;
  white-space: pre-wrap;
  overflow-wrap: anywhere;
}
.scroll {
  overflow-x: auto;
}
table {
  border-collapse: collapse;
  margin: 0.5rem 0;
}
caption {
  text-align: left;
  color: var(--muted);
}
th,
td {
  border: 1px solid var(--line);
  padding: 0.2rem 0.5rem;
  text-align: left;
  vertical-align: top;
}
.matrix td {
  text-align: center;
  min-width: 3rem;
}
.matrix td.sdefault {
  background: var(--s3);
}
.matrix td.never,
tr.never td {
  background: var(--never);
}
.matrix td.undeclared {
  background: repeating-linear-gradient(45deg, transparent, transparent 4px, var(--line) 4px, var(--line) 5px);
}
.forced {
  font-weight: 700;
}
.sr-only {
  position: absolute;
  width: 1px;
  height: 1px;
  overflow: hidden;
  clip: rect(0 0 0 0);
  white-space: nowrap;
}
.resource {
  margin-bottom: 1rem;
}
#token-form {
  border: 2px solid var(--accent);
  margin: 0.5rem 1rem;
  padding: 0.5rem 1rem;
}
`

export const DASHBOARD_SCRIPT = String.raw`// The dashboard of plant-store-mock: plain DOM, no framework, no build step. Every value the mock
// sends is shown with textContent (never innerHTML), so a request carrying markup shows as text.
// The admin API is where this script came from, one folder up: /__mock, or under the prefix that a
// host serving the mock on its own port puts before it (the Vite plugin's base: /api/__mock).
const API = new URL('..', import.meta.url).pathname.replace(/\/$/, '')
/** Rows the journal puts in the page at most: the newest that match the filters. */
const MAX_ROWS = 200
/** Entries the page keeps at most (the journal keeps 1,000 by default). */
const MAX_ENTRIES = 5000
const TOKEN_KEY = 'plant-store-mock.admin-token'
const THEME_KEY = 'plant-store-mock.theme'

const byId = (id) => document.getElementById(id)

/** An element with attributes, listeners (on...) and children; strings become text nodes. */
function el(tag, attributes, ...children) {
  const node = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === undefined || value === null || value === false) continue
    if (name === 'class') node.className = value
    else if (name.startsWith('on')) node.addEventListener(name.slice(2), value)
    else node.setAttribute(name, value === true ? '' : String(value))
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue
    node.append(child instanceof Node ? child : String(child))
  }
  return node
}

const json = (value) => JSON.stringify(value, null, 2)
const statusClass = (status) => (status >= 100 && status < 600 ? 's' + Math.floor(status / 100) + 'xx' : 's0')

function say(text, isError) {
  const message = byId('message')
  message.textContent = text
  message.className = isError ? 'error' : ''
}

// --- The admin API, with the token the page was given --------------------------------------------

const token = () => sessionStorage.getItem(TOKEN_KEY)

async function api(method, path, options) {
  const { body, session } = options || {}
  const headers = {}
  if (token()) headers.authorization = 'Bearer ' + token()
  if (session) headers['x-mock-session'] = session
  if (body !== undefined) headers['content-type'] = 'application/json'
  const text = body === undefined || typeof body === 'string' ? body : JSON.stringify(body)
  const response = await fetch(API + path, { method, headers, body: text })
  if (response.status === 401) {
    askToken()
    throw new Error('The admin API needs the admin token.')
  }
  const answer = await response.text()
  let data = answer
  try {
    data = answer ? JSON.parse(answer) : undefined
  } catch {
    // not JSON: kept as text
  }
  if (!response.ok) throw new Error((data && data.message) || response.status + ' ' + response.statusText)
  return data
}

/** Runs an action of a button or form, saying what failed instead of throwing. */
async function attempt(action, done) {
  try {
    const result = await action()
    if (done) say(done)
    return result
  } catch (error) {
    say(error.message, true)
    return undefined
  }
}

function askToken() {
  const form = byId('token-form')
  if (!form.hidden) return
  form.hidden = false
  byId('token').focus()
}

function saveToken(event) {
  event.preventDefault()
  sessionStorage.setItem(TOKEN_KEY, byId('token').value)
  byId('token').value = ''
  byId('token-form').hidden = true
  say('Token kept for this tab.')
  openStream()
  showView(currentView)
}

// --- Views --------------------------------------------------------------------------------------

const VIEWS = ['journal', 'coverage', 'scenarios', 'stubs', 'state', 'deliveries']
const loaders = {}
let currentView = 'journal'

function showView(name) {
  currentView = name
  for (const view of VIEWS) {
    byId('view-' + view).hidden = view !== name
    const button = byId('show-' + view)
    if (view === name) button.setAttribute('aria-current', 'page')
    else button.removeAttribute('aria-current')
  }
  if (location.hash !== '#' + name) history.replaceState(null, '', '#' + name)
  if (loaders[name]) attempt(loaders[name])
}

/** Views that count requests are read again, at most once a second, while requests arrive. */
let refreshTimer
function refreshSoon() {
  if (refreshTimer || currentView === 'journal' || !loaders[currentView]) return
  refreshTimer = setTimeout(() => {
    refreshTimer = undefined
    if (['coverage', 'stubs', 'state', 'deliveries'].includes(currentView)) attempt(loaders[currentView])
  }, 1000)
}

// --- The live journal -----------------------------------------------------------------------------

const entries = []
const opened = new Set()
const operations = new Set()
let lastId = 0
let missed = 0
/** Requests the stream left out of a busy batch (it sends the newest 100 each 0.1 s): in the journal, not in the page. */
let skipped = 0
let streamAbort

function setStreamState(text) {
  byId('stream-state').textContent = text
}

/** Server-Sent Events read with fetch, which (unlike EventSource) can send the admin token. */
async function openStream() {
  if (streamAbort) streamAbort.abort()
  const abort = new AbortController()
  streamAbort = abort
  const headers = { 'last-event-id': String(lastId) }
  if (token()) headers.authorization = 'Bearer ' + token()
  try {
    // The summary view: a row's fields a request, batched; a row opened fetches its entry whole.
    const response = await fetch(API + '/requests/stream?view=summary', { headers, signal: abort.signal })
    if (response.status === 401) {
      setStreamState('Journal: needs the admin token')
      askToken()
      return
    }
    if (!response.ok) throw new Error('status ' + response.status)
    setStreamState('Journal: live')
    await readEvents(response.body, onEvent)
  } catch (error) {
    if (abort.signal.aborted) return
    setStreamState('Journal: disconnected (' + error.message + '), retrying')
  }
  if (abort.signal.aborted) return
  setStreamState('Journal: reconnecting')
  setTimeout(() => streamAbort === abort && openStream(), 2000)
}

async function readEvents(body, handle) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ''
  for (;;) {
    const { value, done } = await reader.read()
    if (done) return
    buffer += value.replace(/\r\n?/g, '\n')
    let end
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      handle(parseEvent(buffer.slice(0, end)))
      buffer = buffer.slice(end + 2)
    }
  }
}

function parseEvent(block) {
  const event = { type: 'message', data: '', id: undefined }
  for (const line of block.split('\n')) {
    if (line === '' || line[0] === ':') continue
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? '' : line.slice(colon + 1)
    if (value[0] === ' ') value = value.slice(1)
    if (field === 'data') event.data = event.data ? event.data + '\n' + value : value
    else if (field === 'event') event.type = value
    else if (field === 'id') event.id = value
  }
  return event
}

function onEvent(event) {
  if (event.type === 'dropped') {
    missed += JSON.parse(event.data).dropped
  } else if (event.type === 'skipped') {
    skipped += JSON.parse(event.data).skipped
  } else if (event.type === 'summaries') {
    for (const entry of JSON.parse(event.data)) {
      lastId = Math.max(lastId, entry.id)
      entries.push(entry)
      if (entry.operation && !operations.has(entry.operation)) addOperation(entry.operation)
    }
    if (entries.length > MAX_ENTRIES) entries.splice(0, entries.length - MAX_ENTRIES)
    refreshSoon()
  } else return
  renderSoon()
}

function addOperation(name) {
  operations.add(name)
  const select = byId('filter-operation')
  const options = [...operations].sort()
  const chosen = select.value
  select.replaceChildren(el('option', { value: '' }, 'any'), ...options.map((op) => el('option', { value: op }, op)))
  select.value = chosen
}

let renderTimer
function renderSoon() {
  if (renderTimer === undefined) renderTimer = setTimeout(renderJournal, 100)
}

function journalFilter() {
  const operation = byId('filter-operation').value
  const status = byId('filter-status').value.trim().toLowerCase()
  const session = byId('filter-session').value.trim()
  const validity = byId('filter-valid').value
  return (entry) =>
    (!operation || entry.operation === operation) &&
    (!status || String(entry.status) === status || (status.length === 3 && status.endsWith('xx') && String(entry.status)[0] === status[0])) &&
    (!session || entry.session === session) &&
    (!validity || String(entry.valid) === validity)
}

function renderJournal() {
  renderTimer = undefined
  const keep = journalFilter()
  const shown = []
  let matching = 0
  for (let i = entries.length - 1; i >= 0; i--) {
    if (!keep(entries[i])) continue
    matching++
    if (shown.length < MAX_ROWS) shown.push(entries[i])
  }
  byId('journal-list').replaceChildren(...shown.map(journalRow))
  const past = matching > shown.length ? 'the newest ' + shown.length + ' of ' : ''
  byId('journal-count').textContent =
    'Showing ' + past + matching + ' matching of ' + entries.length + ' received' +
    (missed ? '; ' + missed + ' missed while the page fell behind' : '') +
    (skipped ? '; ' + skipped + ' not shown live under load (the journal has them)' : '') + '.'
}

function journalRow(entry) {
  const details = el('details', { 'data-id': entry.id })
  const query = entry.query ? '?' + entry.query : ''
  details.append(
    el(
      'summary',
      {},
      el('span', { class: 'badge ' + statusClass(entry.status) }, entry.status),
      ' ',
      el('span', { class: 'method' }, entry.method),
      ' ',
      el('span', { class: 'path' }, entry.path + query),
      ' ',
      el('span', { class: 'muted' }, entry.operation || 'no operation'),
      entry.valid ? '' : el('span', { class: 'badge invalid' }, 'invalid'),
      entry.answeredBy ? el('span', { class: 'badge' }, entry.answeredBy) : '',
      entry.session ? el('span', { class: 'muted' }, ' session ' + entry.session) : '',
      el('time', { class: 'muted', datetime: entry.time }, ' ' + entry.time.slice(11, 23)),
    ),
  )
  details.addEventListener('toggle', () => {
    if (details.open) {
      opened.add(entry.id)
      if (details.children.length === 1) showDetails(details, entry.id)
    } else opened.delete(entry.id)
  })
  if (opened.has(entry.id)) {
    details.open = true
    showDetails(details, entry.id)
  }
  return el('li', {}, details)
}

/** Entries opened, fetched whole once (the stream sends summaries); the newest 200 are kept. */
const fetchedEntries = new Map()

async function showDetails(details, id) {
  let entry = fetchedEntries.get(id)
  if (entry === undefined) {
    const loading = el('p', { class: 'muted', role: 'status' }, 'Loading the entry…')
    details.append(loading)
    try {
      entry = await api('GET', '/requests/' + id)
    } catch (error) {
      loading.replaceWith(el('p', { class: 'muted' }, 'This entry is no longer in the journal (' + error.message + ').'))
      return
    }
    fetchedEntries.set(id, entry)
    if (fetchedEntries.size > 200) fetchedEntries.delete(fetchedEntries.keys().next().value)
    loading.remove()
  }
  if (details.children.length === 1) details.append(entryDetails(entry))
}

function block(title, value) {
  if (value === undefined || value === null || value === '') return ''
  return el('div', { class: 'block' }, el('h4', {}, title), el('pre', {}, typeof value === 'string' ? value : json(value)))
}

function entryDetails(entry) {
  const response = entry.response || {}
  const violations = entry.violations.map((v) => v.path + ': ' + v.message).join('\n')
  const answerViolations = (entry.responseViolations || []).map((v) => v.path + ': ' + v.message).join('\n')
  return el(
    'div',
    { class: 'entry' },
    block('Request headers', entry.headers),
    block('Request body' + (entry.bodyTruncated ? ' (first 64 KiB)' : ''), entry.body),
    block('Response ' + (response.status || entry.status), response.headers),
    block('Response body' + (response.bodyTruncated ? ' (first 64 KiB)' : ''), response.body),
    block('Reason', entry.reason),
    block('Violations', violations),
    block('Response violations', answerViolations),
    block('Answered by', entry.answeredBy),
    block('Near miss', entry.nearMiss),
    block('Data change', entry.data),
    block('Fault', entry.fault),
    block('Scenario', entry.scenario + ' (' + entry.durationMs + ' ms)'),
  )
}

async function clearJournal() {
  await attempt(() => api('DELETE', '/requests'), 'Journal emptied.')
  entries.length = 0
  opened.clear()
  missed = 0
  skipped = 0
  renderJournal()
}

// --- Coverage -----------------------------------------------------------------------------------

loaders.coverage = async () => {
  const target = byId('coverage-body')
  let coverage
  try {
    coverage = await api('GET', '/coverage')
  } catch (error) {
    target.replaceChildren(el('p', {}, 'No coverage to show: ' + error.message))
    return
  }
  target.replaceChildren(coverageSummary(coverage), coverageTable(coverage))
}

function coverageSummary(coverage) {
  const summary = coverage.summary || {}
  const parts = []
  for (const name of ['operations', 'statuses', 'responses', 'bodies', 'rules', 'events']) {
    const part = summary[name]
    if (part && part.total !== undefined)
      parts.push(name + ': ' + part.exercised + ' of ' + part.total + ' (' + percent(part.exercised, part.total) + ')')
  }
  for (const name of ['requests', 'invalid', 'unmatched'])
    if (typeof summary[name] === 'number') parts.push(name + ': ' + summary[name])
  const since = coverage.since ? '. Counted since ' + coverage.since + (coverage.session ? ', session ' + coverage.session : '') + '.' : ''
  return el('p', { id: 'coverage-summary' }, (parts.join(' · ') || 'No summary.') + since)
}

const percent = (part, total) => (total ? Math.round((100 * part) / total) : 100) + ' %'

/** Declared statuses in order: 200 before 2XX before 400, "default" last. */
function statusOrder(a, b) {
  const rank = (s) => (s === 'default' ? '9' : s.toUpperCase())
  return rank(a) < rank(b) ? -1 : rank(a) > rank(b) ? 1 : 0
}

function coverageTable(coverage) {
  const operations = coverage.operations || []
  const statuses = [...new Set(operations.flatMap((op) => (op.responses || []).map((r) => String(r.status))))].sort(statusOrder)
  const head = el('tr', {}, el('th', { scope: 'col' }, 'Operation'), statuses.map((s) => el('th', { scope: 'col' }, s)), el('th', { scope: 'col' }, 'Undeclared answers'))
  const rows = operations.map((op) => {
    const cells = statuses.map((status) => coverageCell(op, status))
    const undeclared = (op.undeclared || []).map((u) => u.status + ' ×' + u.answered).join(', ')
    const name = op.operation || op.method + ' ' + op.path
    return el(
      'tr',
      {},
      el('th', { scope: 'row' }, name, el('div', { class: 'muted' }, (op.method || '') + ' ' + (op.path || '') + ' · ' + (op.requests || 0) + ' requests')),
      cells,
      el('td', {}, undeclared),
    )
  })
  const caption = 'Answers per operation and declared status; * marks a status forced (Prefer, __code or a scenario); grey: never answered; striped: not declared'
  const table = el('table', { class: 'matrix' }, el('caption', {}, caption), el('thead', {}, head), el('tbody', {}, rows))
  return el(
    'div',
    { class: 'scroll' },
    table,
    unmatchedTable(coverage.unmatched || []),
    usageTable(
      'Fixtures and examples',
      ['Operation', 'Status', 'Body', 'Served'],
      3,
      operations.flatMap((op) =>
        (op.responses || []).flatMap((r) =>
          (r.bodies || []).map((b) => [op.operation, r.status, b.origin + ' ' + b.name, b.answered]),
        ),
      ),
    ),
    usageTable('Stubs and scenario rules', ['Rule', 'Answered'], 1, (coverage.rules || []).map((r) => [r.rule, r.hits])),
    usageTable(
      'Callbacks and webhooks',
      ['Callback or webhook', 'Sent', 'Delivered', 'As declared'],
      1,
      (coverage.events || []).map((e) => [
        e.kind === 'callback' ? e.operation + ' callback ' + e.name : 'webhook ' + e.name,
        e.sent,
        e.delivered,
        e.conformed,
      ]),
    ),
  )
}

/** A table of things used or not; a row whose count (at countAt) is 0 is marked as a cell never answered. */
function usageTable(caption, headings, countAt, rows) {
  if (rows.length === 0) return ''
  return el(
    'table',
    {},
    el('caption', {}, caption),
    el('thead', {}, el('tr', {}, headings.map((h) => el('th', { scope: 'col' }, h)))),
    el(
      'tbody',
      {},
      rows.map((row) => el('tr', { class: row[countAt] === 0 ? 'never' : '' }, row.map((value) => el('td', {}, String(value))))),
    ),
  )
}

function coverageCell(op, status) {
  const answers = (op.responses || []).filter((r) => String(r.status) === status)
  if (answers.length === 0) return el('td', { class: 'undeclared' }, el('span', { class: 'sr-only' }, 'not declared'))
  const count = answers.reduce((sum, r) => sum + (r.answered || 0), 0)
  const forced = answers.reduce((sum, r) => sum + (r.forced || 0), 0)
  const how = answers.map((r) => (r.mediaType || 'no content') + ': ' + (r.answered || 0) + chosenBy(r.chosenBy)).join('; ')
  const kind = count === 0 ? 'never' : /^[1-5]/.test(status) ? 's' + status[0] + 'xx' : 'sdefault'
  return el(
    'td',
    { class: 'cell ' + kind, title: how },
    String(count),
    forced ? el('span', { class: 'forced', title: forced + ' forced' }, '*') : '',
    el('span', { class: 'sr-only' }, count === 0 ? ' never answered' : forced ? ', ' + forced + ' forced' : ''),
  )
}

function chosenBy(counts) {
  const parts = Object.entries(counts || {}).filter(([, n]) => n > 0).map(([how, n]) => how + ' ' + n)
  return parts.length ? ' (' + parts.join(', ') + ')' : ''
}

function unmatchedTable(unmatched) {
  if (unmatched.length === 0) return el('p', {}, 'Every request matched an operation.')
  return el(
    'table',
    {},
    el('caption', {}, 'Requests that matched no operation'),
    el('thead', {}, el('tr', {}, ['Method', 'Path', 'Count', 'Nearest operation'].map((h) => el('th', { scope: 'col' }, h)))),
    el('tbody', {}, unmatched.map((u) => el('tr', {}, el('td', {}, u.method), el('td', {}, u.path), el('td', {}, u.count), el('td', {}, u.nearest || '')))),
  )
}

// --- Scenarios ----------------------------------------------------------------------------------

loaders.scenarios = async () => {
  const session = byId('scenario-session').value.trim()
  const data = await api('GET', '/scenario', { session })
  byId('scenario-active').textContent =
    'Active' + (session ? ' for session ' + session : ' for clients without a session') + ': ' + data.active
  const select = byId('scenario-name')
  select.replaceChildren(
    ...data.scenarios.map((s) =>
      el('option', { value: s.name }, s.name + (s.description ? ' — ' + s.description : '')),
    ),
  )
  select.value = data.active
  byId('scenario-hits').replaceChildren(
    ...(data.hits.length ? data.hits.map((h) => el('li', {}, h.rule + ': ' + h.hits)) : [el('li', {}, 'No rule has answered yet.')]),
  )
}

async function switchScenario(event) {
  event.preventDefault()
  const session = byId('scenario-session').value.trim()
  const name = byId('scenario-name').value
  await attempt(() => api('PUT', '/scenario', { body: session ? { name, session } : { name } }), 'Scenario ' + name + ' in force.')
  await attempt(loaders.scenarios)
}

// --- Stubs --------------------------------------------------------------------------------------

loaders.stubs = async () => {
  const { stubs } = await api('GET', '/stubs')
  const rows = stubs.map((stub) =>
    el(
      'tr',
      {},
      el('td', {}, stub.id),
      el('td', {}, stub.operation),
      el('td', {}, stub.status === undefined ? '' : stub.status),
      el('td', {}, stub.hits),
      el('td', {}, stub.session || ''),
      el('td', {}, el('code', {}, JSON.stringify(stub.when || {}))),
      el('td', {}, el('button', { type: 'button', 'aria-label': 'Remove stub ' + stub.id, onclick: () => removeStub(stub.id) }, 'Remove')),
    ),
  )
  byId('stub-rows').replaceChildren(...rows)
  byId('stub-count').textContent = stubs.length === 1 ? '1 stub' : stubs.length + ' stubs'
}

async function addStub(event) {
  event.preventDefault()
  const created = await attempt(() => api('POST', '/stubs', { body: byId('stub-json').value }))
  if (created) say('Stub ' + created.id + ' added.')
  await attempt(loaders.stubs)
}

async function removeStub(id) {
  await attempt(() => api('DELETE', '/stubs/' + encodeURIComponent(id)), 'Stub ' + id + ' removed.')
  await attempt(loaders.stubs)
}

// --- Stateful records ---------------------------------------------------------------------------

loaders.state = async () => {
  const target = byId('state-body')
  let data
  try {
    data = await api('GET', '/state')
  } catch (error) {
    target.replaceChildren(el('p', {}, error.message))
    return
  }
  const resources = Object.entries(data.resources)
  target.replaceChildren(
    ...resources.map(([name, records], index) => {
      const id = 'records-' + index
      return el(
        'section',
        { class: 'resource', 'aria-label': 'Resource ' + name },
        el('h3', {}, name + ' (' + records.length + ')'),
        el('label', { for: id }, 'Records of ' + name + ' (JSON)'),
        el('textarea', { id, rows: Math.min(12, 2 + records.length * 3), spellcheck: 'false' }, json(records)),
        el('div', { class: 'row' },
          el('button', { type: 'button', onclick: () => putRecords(name, byId(id).value) }, 'Replace ' + name),
          el('button', { type: 'button', onclick: () => putRecords(name, '[]') }, 'Empty ' + name),
          el('button', { type: 'button', onclick: () => resetRecords(name) }, 'Reset ' + name + ' to its seed'),
        ),
      )
    }),
  )
}

async function putRecords(resource, text) {
  await attempt(() => api('PUT', '/state/' + encodeURIComponent(resource), { body: text }), 'Records of ' + resource + ' replaced.')
  await attempt(loaders.state)
}

async function resetRecords(resource) {
  await attempt(
    () => api('POST', '/state/' + encodeURIComponent(resource) + '/reset'),
    'Records of ' + resource + ' back to the seed.',
  )
  await attempt(loaders.state)
}

async function resetAll() {
  await attempt(() => api('POST', '/reset'), 'Everything reset: scenario, journal, stubs, deliveries and data.')
  entries.length = 0
  renderJournal()
  if (loaders[currentView]) await attempt(loaders[currentView])
}

// --- Deliveries ---------------------------------------------------------------------------------

loaders.deliveries = async () => {
  const { deliveries } = await api('GET', '/deliveries')
  byId('delivery-rows').replaceChildren(
    ...deliveries
      .slice()
      .reverse()
      .map((d) =>
        el(
          'tr',
          {},
          el('td', {}, d.id),
          el('td', {}, d.time.slice(11, 19)),
          el('td', {}, d.kind),
          el('td', {}, d.name),
          el('td', {}, d.operation || ''),
          el('td', {}, d.target),
          el('td', {}, el('span', { class: 'badge outcome-' + d.outcome }, d.outcome)),
          el('td', {}, (d.attempts || []).length),
        ),
      ),
  )
  byId('delivery-count').textContent = deliveries.length === 1 ? '1 delivery' : deliveries.length + ' deliveries'
}

async function sendWebhook(event) {
  event.preventDefault()
  const body = { name: byId('webhook-name').value.trim() }
  const to = byId('webhook-to').value.trim()
  const payload = byId('webhook-body').value.trim()
  if (to) body.to = to
  if (payload) {
    try {
      body.body = JSON.parse(payload)
    } catch {
      say('The webhook body is not JSON.', true)
      return
    }
  }
  const sent = await attempt(() => api('POST', '/webhooks', { body }))
  if (sent) say('Webhook ' + sent.name + ' ' + sent.outcome + ' (delivery ' + sent.id + ').')
  await attempt(loaders.deliveries)
}

// --- Theme and start ----------------------------------------------------------------------------

function applyTheme(theme) {
  if (theme) document.documentElement.dataset.theme = theme
  else delete document.documentElement.dataset.theme
  const dark = theme ? theme === 'dark' : matchMedia('(prefers-color-scheme: dark)').matches
  const button = byId('theme')
  button.setAttribute('aria-pressed', String(dark))
}

function toggleTheme() {
  const dark = byId('theme').getAttribute('aria-pressed') === 'true'
  const theme = dark ? 'light' : 'dark'
  localStorage.setItem(THEME_KEY, theme)
  applyTheme(theme)
}

function start() {
  applyTheme(localStorage.getItem(THEME_KEY))
  byId('theme').addEventListener('click', toggleTheme)
  byId('token-form').addEventListener('submit', saveToken)
  for (const view of VIEWS) byId('show-' + view).addEventListener('click', () => showView(view))
  for (const id of ['filter-operation', 'filter-valid']) byId(id).addEventListener('change', renderJournal)
  for (const id of ['filter-status', 'filter-session']) byId(id).addEventListener('input', renderSoon)
  byId('journal-clear').addEventListener('click', clearJournal)
  byId('scenario-form').addEventListener('submit', switchScenario)
  byId('scenario-load').addEventListener('click', () => attempt(loaders.scenarios))
  byId('stub-form').addEventListener('submit', addStub)
  byId('stubs-refresh').addEventListener('click', () => attempt(loaders.stubs))
  byId('state-refresh').addEventListener('click', () => attempt(loaders.state))
  byId('reset-all').addEventListener('click', resetAll)
  byId('webhook-form').addEventListener('submit', sendWebhook)
  byId('deliveries-refresh').addEventListener('click', () => attempt(loaders.deliveries))
  byId('coverage-refresh').addEventListener('click', () => attempt(loaders.coverage))
  const asked = location.hash.slice(1)
  showView(VIEWS.includes(asked) ? asked : 'journal')
  renderJournal()
  openStream()
}

start()
`
