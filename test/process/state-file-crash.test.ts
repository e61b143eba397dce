/**
 * The state file survives kill -9: a process writing it as fast as it can
 * (test/support/state-file-writer-child.mjs, on the built dist/node/state-writer.js) is killed with
 * SIGKILL at random moments, over and over on the same file; after each kill the file is absent
 * (nothing written yet) or a whole document, the old one or the new, never half of one.
 */
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { LosslessNumber } from 'lossless-json'
import { afterEach, describe, expect, it } from 'vitest'
import { silentLogger } from '../../src/common/log.js'
import type { StateDocument } from '../../src/common/state-file.js'
import { readStateFile } from '../../src/node/state-file.js'
import { createStateWriter } from '../../src/node/state-writer.js'
import { cleanEnv, root, start, stopProcesses, waitForOutput, within } from '../support/processes.js'
import { sleep } from '../support/raw-socket.js'
import { removeTempDirs, tempDir } from '../support/temp-dirs.js'

const childPath = fileURLToPath(new URL('../support/state-file-writer-child.mjs', import.meta.url))

const KILLS = 15
const FIRST_ID = 9007199254740993n

afterEach(async () => {
  await stopProcesses()
  await removeTempDirs()
})

const temporaryFiles = (dir: string) => readdirSync(dir).filter((name) => name.endsWith('.tmp'))

/** Which child wrote the document, and which of its writes it is, having checked that it is whole. */
function checkWhole(document: StateDocument): { child: number; write: number } {
  const [meta] = document.data.meta as Array<{ child: number; write: number; count: number }>
  const plants = document.data.plants as Array<{ id: unknown; name: string }>
  expect(plants).toHaveLength(meta!.count)
  plants.forEach((plant, i) => {
    expect(plant.id).toBeInstanceOf(LosslessNumber)
    expect((plant.id as LosslessNumber).value).toBe(String(FIRST_ID + BigInt(i)))
    expect(plant.name).toBe(`plant ${i} of write ${meta!.write}`)
  })
  expect(document.sessions.s!.plants).toHaveLength(meta!.count % 7)
  return { child: meta!.child, write: meta!.write }
}

describe('the state file under kill -9', () => {
  it(`is absent or a whole document after each of ${KILLS} kills at random moments mid-write`, async () => {
    const dir = await tempDir('state-file-crash-')
    const file = join(dir, 'data.json')
    const seen = new Set<string>()
    let found = false
    for (let kill = 1; kill <= KILLS; kill++) {
      const writer = start(process.execPath, [childPath, file, String(kill)], { cwd: root, env: cleanEnv() })
      await waitForOutput(writer, /^started$/m, 5000, `writer ${kill} to start`)
      await sleep(20 + Math.floor(Math.random() * 280))
      expect(writer.child.exitCode, writer.stderr()).toBeNull()
      writer.child.kill('SIGKILL')
      expect(await within(5000, `writer ${kill} to die`, writer.exited)).toBe('SIGKILL')
      expect(writer.stderr()).toBe('')

      const document = await readStateFile(file)
      // Once there, the file is always there: a write replaces it, never removes it first.
      if (document === undefined) expect(found, `the state file after kill ${kill}`).toBe(false)
      else {
        const { child, write } = checkWhole(document)
        seen.add(`${child}/${write}`)
        found = true
      }
      // A killed write leaves its temporary file (two when a flushSync superseded a write in progress);
      // each new writer removes those of the dead.
      expect(temporaryFiles(dir).length).toBeLessThanOrEqual(2)
    }
    // Not a vacuous pass: most writers wrote before their kill (one killed before its first write leaves
    // the last one's document, which is fine but shows nothing new), so the kills fell among writes.
    expect(seen.size).toBeGreaterThan(KILLS / 2)

    createStateWriter(file, () => '', silentLogger).close()
    expect(temporaryFiles(dir)).toEqual([])
  }, 25_000)
})
