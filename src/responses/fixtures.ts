import { readdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { StartupError } from '../errors.js'

/** One fixture file: a named response body for one operation and status. */
export interface Fixture {
  file: string
  /** `200`, `2XX` or `default`, as the file name says. */
  code: string
  /** `default` for `200.json`, `duplicate-id` for `400.duplicate-id.json`. */
  name: string
  value: unknown
}

/** Fixtures by folder name (operationId, or e.g. `post_plants_{id}`). */
export type FixtureSet = Map<string, Fixture[]>

const FIXTURE_FILE = /^([1-5](?:\d\d|XX)|default)(?:\.([A-Za-z0-9][\w-]*))?\.json$/

/** What editors and tools leave beside the files they edit: `200.json~`, `200.json.bak`, `200.json.swp`, `#200.json#`. */
const EDITOR_LEFTOVER = /(?:~|\.bak|\.orig|\.tmp|\.sw[op])$|^#.*#$/

/**
 * Reads `<dir>/<operation>/<status>[.<name>].json`. Files at the top level are left for other
 * features (a scenarios file, a README); anything malformed inside an operation folder stops start-up,
 * except dotfiles (`.#200.json`) and editor leftovers, which are passed over (`skipped` is told each
 * leftover, for one warning): an open editor must not stop the mock, nor a reload under `--watch`.
 */
export async function loadFixtures(dir: string, required: boolean, skipped: (file: string) => void = () => {}): Promise<FixtureSet> {
  const fixtures: FixtureSet = new Map()
  if (!dir) return fixtures
  if (!(await isDirectory(dir))) {
    if (required) throw new StartupError(`The fixtures folder ${dir} does not exist or is not a folder.`)
    return fixtures
  }
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue
    fixtures.set(entry.name, await loadOperationFolder(join(dir, entry.name), skipped))
  }
  return fixtures
}

async function loadOperationFolder(folder: string, skipped: (file: string) => void): Promise<Fixture[]> {
  const fixtures: Fixture[] = []
  for (const name of (await readdir(folder)).sort()) {
    if (name.startsWith('.')) continue
    const file = join(folder, name)
    if (EDITOR_LEFTOVER.test(name)) {
      skipped(file)
      continue
    }
    const match = FIXTURE_FILE.exec(name)
    if (!match) {
      throw new StartupError(`The fixture ${file} is not named <status>[.<name>].json (for example 200.json or 400.duplicate-id.json).`)
    }
    fixtures.push({ file, code: match[1]!, name: match[2] ?? 'default', value: await readJson(file) })
  }
  return fixtures
}

async function readJson(file: string): Promise<unknown> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    throw new StartupError(`Cannot read the fixture ${file}: ${(error as Error).message}`)
  }
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new StartupError(`The fixture ${file} is not valid JSON: ${(error as Error).message}`)
  }
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory()
  } catch {
    return false
  }
}
