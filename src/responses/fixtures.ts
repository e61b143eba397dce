import { type Files, type FolderEntry, byName } from '../common/files.js'
import { startupErrors } from '../errors/index.js'
import { isHeaderName } from '../internal/header-value.js'
import { isJsonType } from '../internal/media-type.js'
import { eventsOf } from '../internal/event-stream.js'
import { isPlainObject } from '../internal/plain-object.js'

/** One fixture file: a named response body for one operation and status. */
export interface Fixture {
  file: string
  /** `200`, `2XX` or `default`, as the file name says. */
  code: string
  /** `default` for `200.json`, `duplicate-id` for `400.duplicate-id.json`. */
  name: string
  value: unknown
  /** `200.png`, `200.csv`...: a file served as it is, with the media type its extension names (#31 §3). */
  content?: FileBody
  /** `200.stream.jsonl` or `200.stream.sse`: the items of a streamed answer, in order (#31 §2). */
  stream?: StreamFixture
  /** From its sidecar `<status>[.<name>].headers.json`: lower-case header name → value, sent with this body. */
  headers?: Record<string, string>
  /** The sidecar's path, for start-up errors. */
  headersFile?: string
  /** `callbacks/<name>.json`: the body of the operation's callback `name`, not an answer (`code` is `200`). */
  callback?: string
}

/** A fixture that is not JSON: its bytes and the media type of its file name's extension. */
export interface FileBody {
  mediaType: string
  bytes: Uint8Array
}

/** One item of a stream fixture: its JSON text and value, and for an SSE file the event's name and id. */
export interface StreamFixtureItem {
  value: unknown
  event?: string
  id?: string
}

/**
 * A stream fixture's items, and the closing event an SSE file ends with when its last event's data
 * is not JSON (`data: [DONE]`), sent as written.
 */
export interface StreamFixture {
  items: StreamFixtureItem[]
  closing?: string
}

/** Fixtures by folder name (operationId, or e.g. `post_plants_{id}`). */
export type FixtureSet = Map<string, Fixture[]>

const FIXTURE_FILE = /^([1-5](?:\d\d|XX)|default)(?:\.([A-Za-z0-9][\w-]*))?\.json$/

/** `200.stream.jsonl` (a JSON value a line) or `200.stream.sse` (Server-Sent Events): a streamed answer's items. */
const STREAM_FILE = /^([1-5](?:\d\d|XX)|default)(?:\.([A-Za-z0-9][\w-]*))?\.stream\.(jsonl|sse)$/

/** Any other file, `200.png` or `400.broken.csv`: served as it is, as the media type its extension names. */
const OTHER_FILE = /^([1-5](?:\d\d|XX)|default)(?:\.([A-Za-z0-9][\w-]*))?\.([A-Za-z0-9]+)$/

/** The headers of a fixture: `200.headers.json` beside `200.json`, `400.taken.headers.json` beside `400.taken.json`. */
const HEADERS_FILE = /^([1-5](?:\d\d|XX)|default)(?:\.([A-Za-z0-9][\w-]*))?\.headers\.json$/

/**
 * Headers a sidecar cannot set: the media type is negotiated (`Content-Type`), the framing is the
 * server's, and the mock's own `X-Mock-*` headers are written after the fixture's.
 */
export const RESERVED_HEADER =
  /^(content-type|content-length|content-encoding|transfer-encoding|connection|keep-alive|proxy-connection|te|trailer|upgrade|x-mock-.*)$/

/** What editors and tools leave beside the files they edit: `200.json~`, `200.json.bak`, `200.json.swp`, `#200.json#`. */
const EDITOR_LEFTOVER = /(?:~|\.bak|\.orig|\.tmp|\.sw[op])$|^#.*#$/

/** `fixtures/data/<resource>.json`: the seed of stateful mode (`state/load-seed.ts`), not an operation's fixtures. */
export const SEED_FOLDER = 'data'

/**
 * Reads `<dir>/<operation>/<status>[.<name>].json`, and beside each the headers it is sent with,
 * `<status>[.<name>].headers.json`, if any. Files at the top level are left for other
 * features (a scenarios file, a README); anything malformed inside an operation folder stops start-up,
 * except dotfiles (`.#200.json`) and editor leftovers, which are passed over (`skipped` is told each
 * leftover, for one warning): an open editor must not stop the mock, nor a reload under `--watch`.
 */
export async function loadFixtures(
  dir: string,
  files: Files,
  required: boolean,
  skipped: (file: string) => void = () => {},
): Promise<FixtureSet> {
  const fixtures: FixtureSet = new Map()
  if (!dir) return fixtures
  if (!(await isDirectory(dir, files))) {
    if (required) throw startupErrors.fixtureFolderMissing(dir)
    return fixtures
  }
  for (const entry of await files.list(dir)) {
    if (entry.kind !== 'folder' || entry.name.startsWith('.') || entry.name === SEED_FOLDER) continue
    fixtures.set(entry.name, await loadOperationFolder(entry.path, files, skipped))
  }
  return fixtures
}

async function loadOperationFolder(folder: string, files: Files, skipped: (file: string) => void): Promise<Fixture[]> {
  const fixtures: Fixture[] = []
  const sidecars: FolderEntry[] = []
  for (const entry of (await files.list(folder)).sort(byName)) {
    const { name, path: file } = entry
    if (name.startsWith('.')) continue
    if (name === CALLBACKS_FOLDER && (await isDirectory(file, files))) {
      fixtures.push(...(await loadCallbackFolder(file, files, skipped)))
      continue
    }
    if (EDITOR_LEFTOVER.test(name)) {
      skipped(file)
      continue
    }
    if (HEADERS_FILE.test(name)) {
      sidecars.push(entry)
      continue
    }
    fixtures.push(await readFixture(file, name, files))
  }
  for (const sidecar of sidecars) await attachSidecar(sidecar, files, fixtures)
  return fixtures
}

/** A fixture by its file name's form: JSON, a stream of items, or any other file (an image, a CSV). */
async function readFixture(file: string, name: string, files: Files): Promise<Fixture> {
  const json = FIXTURE_FILE.exec(name)
  if (json) return { file, code: json[1]!, name: json[2] ?? 'default', value: await readJson(file, files) }
  const stream = STREAM_FILE.exec(name)
  if (stream) {
    const text = await readText(file, files)
    const items = stream[3] === 'sse' ? readEventStream(file, text) : readJsonLines(file, text)
    return { file, code: stream[1]!, name: stream[2] ?? 'default', value: undefined, stream: items }
  }
  const other = OTHER_FILE.exec(name)
  const mediaType = other ? files.mediaTypeOf(file) : false
  // A JSON body is a `.json` fixture, checked against its schema: `200.JSON` or `200.geojson` is a misnamed one.
  if (!other || !mediaType || isJsonType(mediaType)) throw startupErrors.fixtureBadName(file)
  let bytes: Uint8Array
  try {
    bytes = await files.readBytes(file)
  } catch (error) {
    throw startupErrors.fixtureUnreadable(file, (error as Error).message)
  }
  return { file, code: other[1]!, name: other[2] ?? 'default', value: undefined, content: { mediaType, bytes } }
}

/** `200.stream.jsonl`: one JSON value a line; blank lines are passed over. */
function readJsonLines(file: string, text: string): StreamFixture {
  const items: StreamFixtureItem[] = []
  const lines = text.split(/\r?\n/)
  lines.forEach((line, index) => {
    if (!line.trim()) return
    try {
      items.push({ value: JSON.parse(line) })
    } catch (error) {
      throw startupErrors.fixtureNotJson(`${file} (line ${index + 1})`, (error as Error).message)
    }
  })
  if (!items.length) throw startupErrors.fixtureEmptyStream(file)
  return { items }
}

/**
 * `200.stream.sse`: events as an event stream writes them (`event:`, `id:` and `data:` lines, a blank
 * line after each; `:` comments and `retry:` are passed over). Each event's data is a JSON item; the
 * last event's data may instead be a closing word such as `[DONE]`, sent as written.
 */
function readEventStream(file: string, text: string): StreamFixture {
  const events = eventsOf(text)
  const fixture: StreamFixture = { items: [] }
  events.forEach((event, index) => {
    const data = event.data ?? ''
    let value: unknown
    try {
      value = JSON.parse(data)
    } catch (error) {
      if (index === events.length - 1 && index > 0 && !data.trimStart().startsWith('{')) {
        fixture.closing = event.event ? `event: ${event.event}\ndata: ${data}\n\n` : `data: ${data}\n\n`
        return
      }
      throw startupErrors.fixtureNotJson(`${file} (the event at line ${event.line})`, (error as Error).message)
    }
    fixture.items.push({ value, event: event.event, id: event.id })
  })
  if (!fixture.items.length) throw startupErrors.fixtureEmptyStream(file)
  return fixture
}

/** `<operation>/callbacks/<name>.json`: the body each callback of the operation sends (`{{request...}}` placeholders read the request that triggered it). */
const CALLBACKS_FOLDER = 'callbacks'
const CALLBACK_FILE = /^([A-Za-z0-9][\w.-]*)\.json$/

async function loadCallbackFolder(folder: string, files: Files, skipped: (file: string) => void): Promise<Fixture[]> {
  const fixtures: Fixture[] = []
  for (const { name, path: file } of (await files.list(folder)).sort(byName)) {
    if (name.startsWith('.')) continue
    if (EDITOR_LEFTOVER.test(name)) {
      skipped(file)
      continue
    }
    const match = CALLBACK_FILE.exec(name)
    if (!match) throw startupErrors.fixtureBadName(file)
    fixtures.push({ file, code: '200', name: 'default', callback: match[1]!, value: await readJson(file, files) })
  }
  return fixtures
}

/** `headers` is the name of no fixture: `200.headers.json` holds the headers of `200.json`, which must be there. */
async function attachSidecar({ name, path: file }: FolderEntry, files: Files, fixtures: Fixture[]): Promise<void> {
  const [, code, named = 'default'] = HEADERS_FILE.exec(name)!
  const fixture = fixtures.find((f) => f.code === code && f.name === named)
  if (!fixture) {
    throw startupErrors.fixtureOrphanHeaders(file, name.replace(/\.headers\.json$/, '.json'))
  }
  fixture.headers = readSidecarHeaders(file, await readJson(file, files))
  fixture.headersFile = file
}

/** A JSON object of header name → text (a number or boolean is written as text), each one a header HTTP can carry. */
function readSidecarHeaders(file: string, value: unknown): Record<string, string> {
  if (!isPlainObject(value)) throw startupErrors.fixtureHeadersNotObject(file)
  const headers: Record<string, string> = {}
  for (const [name, raw] of Object.entries(value)) {
    const key = name.toLowerCase()
    const problem = sidecarHeaderProblem(name, raw)
    if (problem) throw startupErrors.fixtureBadHeader(file, name, problem)
    if (key in headers) throw startupErrors.fixtureDuplicateHeader(file, name)
    headers[key] = String(raw)
  }
  return headers
}

/** Why a sidecar cannot hold this header (a lower-case reserved name included), as a sentence's end; recording checks with it too. */
export function sidecarHeaderProblem(name: string, value: unknown): string | undefined {
  if (!isHeaderName(name)) return "is not a header name HTTP can carry (letters, digits and !#$%&'*+-.^_`|~)"
  if (RESERVED_HEADER.test(name.toLowerCase())) return 'is set by the mock or the server, not by a fixture'
  if (!(
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value))
  ))
    return 'must have a string, number or boolean value'

  if (!/^[\x20-\x7e\t]*$/.test(String(value)))
    return 'has a value a header cannot carry: visible ASCII, spaces and tabs only (percent-encode the rest)'
  return undefined
}

async function readText(file: string, files: Files): Promise<string> {
  try {
    return await files.readText(file)
  } catch (error) {
    throw startupErrors.fixtureUnreadable(file, (error as Error).message)
  }
}

async function readJson(file: string, files: Files): Promise<unknown> {
  const text = await readText(file, files)
  try {
    return JSON.parse(text)
  } catch (error) {
    throw startupErrors.fixtureNotJson(file, (error as Error).message)
  }
}

async function isDirectory(path: string, files: Files): Promise<boolean> {
  try {
    return (await files.stat(path)).kind === 'folder'
  } catch {
    return false
  }
}
