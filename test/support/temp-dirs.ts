/**
 * Throw-away folders: each one made here is removed by `removeTempDirs()`, which a test file runs
 * in its afterEach (or afterAll, for a folder made in beforeAll).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Files by path relative to the folder; a string is written as is, anything else as JSON. */
export type Files = Record<string, unknown>

const made: string[] = []

const textOf = (content: unknown) => (typeof content === 'string' ? content : JSON.stringify(content))

/** Writes `files` under `dir`, making the folders on their paths. */
export async function writeFiles(dir: string, files: Files): Promise<void> {
  for (const [name, content] of Object.entries(files)) {
    await mkdir(join(dir, name, '..'), { recursive: true })
    await writeFile(join(dir, name), textOf(content))
  }
}

/** A fresh folder under the OS temp dir, named `<prefix>XXXXXX`, holding `files`. */
export async function tempDir(prefix: string, files: Files = {}): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix))
  made.push(dir)
  await writeFiles(dir, files)
  return dir
}

/** `tempDir`, synchronously. */
export function tempDirSync(prefix: string, files: Files = {}): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  made.push(dir)
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true })
    writeFileSync(join(dir, name), textOf(content))
  }
  return dir
}

/** Removes every folder made so far. */
export async function removeTempDirs(): Promise<void> {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })))
}
