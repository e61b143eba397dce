import { join } from 'pathe'
import { type Files, byName } from '../common/files.js'
import { startupErrors } from '../errors/index.js'
import { SEED_FOLDER } from '../responses/fixtures.js'
import { type RecordChecker, duplicateKeyProblems } from './check-records.js'
import type { RecordSets, StoredRecord } from './record-store.js'
import { exactBodyOf, markIfExact } from '../internal/exact-values.js'
import type { Resource } from './resource.js'

/** The seed file of a resource: `plants.json`; a name with `/` (`orgs/repos`) is written with `.` (`orgs.repos.json`). */
function seedFileName(resource: Resource): string {
  return `${resource.name.replace(/\//g, '.')}.json`
}

/**
 * Reads `fixtures/data/<resource>.json`, each an array of records, checked against the resource's
 * record schema: a bad record stops start-up naming the file, the index and the field. A file that
 * names no resource stops it too; editor leftovers and dotfiles are passed over.
 */
export async function loadSeed(
  fixturesDir: string,
  files: Files,
  resources: readonly Resource[],
  checkers: ReadonlyMap<string, RecordChecker>,
): Promise<RecordSets> {
  const folder = join(fixturesDir, SEED_FOLDER)
  const entries = fixturesDir ? await files.list(folder).catch(() => []) : []
  const byFile = new Map(resources.map((resource) => [seedFileName(resource), resource]))
  const seed: RecordSets = {}
  for (const { name, path: file } of entries.sort(byName)) {
    if (name.startsWith('.') || !name.endsWith('.json')) continue
    const resource = byFile.get(name)
    if (!resource)
      throw startupErrors.seedUnknownResource(
        file,
        name.slice(0, -5),
        resources.map((r) => r.name),
      )
    seed[resource.name] = await readSeedFile(file, files, resource, checkers.get(resource.name)!)
  }
  return seed
}

async function readSeedFile(
  file: string,
  files: Files,
  resource: Resource,
  check: RecordChecker,
): Promise<StoredRecord[]> {
  let text: string
  try {
    text = await files.readText(file)
  } catch (error) {
    throw startupErrors.seedUnreadable(file, (error as Error).message)
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw startupErrors.seedInvalid(file, `not JSON: ${(error as Error).message}`)
  }
  const problems = check(value)
  if (problems.length) throw startupErrors.seedInvalid(file, `${problems.slice(0, 5).join('; ')}`)
  // Integers beyond 2^53 are kept as written.
  const records = (exactBodyOf(value, () => text) as StoredRecord[]).map(markIfExact)
  const duplicates = duplicateKeyProblems(resource, records)
  if (duplicates.length) throw startupErrors.seedInvalid(file, duplicates.slice(0, 5).join('; '))
  return records
}
