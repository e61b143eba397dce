/** The state file (`src/node/state-file.ts`): read and checked at start-up, written whole after changes. */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { LosslessNumber } from 'lossless-json'
import { afterEach, describe, expect, it } from 'vitest'
import type { Logger } from '../../src/common/log.js'
import { readStateFile } from '../../src/node/state-file.js'
import { createStateWriter } from '../../src/node/state-writer.js'
import { expectStartupError } from '../support/startup-error.js'
import { tempDir, removeTempDirs } from '../support/temp-dirs.js'
import { sleep, within } from '../support/raw-socket.js'

afterEach(removeTempDirs)

/** A logger that keeps what it was told. */
function fakeLogger() {
  const lines = { info: [] as string[], warn: [] as string[], error: [] as string[] }
  const logger: Logger = {
    info: (message) => lines.info.push(message),
    warn: (message) => lines.warn.push(message),
    error: (message) => lines.error.push(message),
  }
  return { logger, lines }
}

/** A snapshot whose text the test sets, counting the calls: one call is one write. */
function snapshotOf(text: string) {
  const state = { text, calls: 0 }
  const snapshot = () => {
    state.calls++
    return state.text
  }
  return { state, snapshot }
}

const documentText = (name: string) => JSON.stringify({ version: 1, data: { plants: [{ id: 1, name }] }, sessions: {} })

const temporaryFiles = (dir: string) => readdirSync(dir).filter((name) => name.endsWith('.tmp'))

/** Polls until `check` holds, bounded. */
async function eventually(what: string, check: () => boolean): Promise<void> {
  await within(
    5000,
    what,
    (async () => {
      while (!check()) await sleep(5)
    })(),
  )
}

describe('readStateFile', () => {
  it('answers undefined when the file does not exist, or its folder does not', async () => {
    const dir = await tempDir('state-file-')
    expect(await readStateFile(join(dir, 'data.json'))).toBeUndefined()
    expect(await readStateFile(join(dir, 'missing', 'data.json'))).toBeUndefined()
    expect(readdirSync(dir)).toEqual([])
  })

  it('reads back exactly what a writer wrote, an integer beyond 2^53 as its literal', async () => {
    const dir = await tempDir('state-file-')
    const file = join(dir, 'data.json')
    const text =
      '{"version":1,"data":{"plants":[{"id":9007199254740993,"name":"Fern","price":1.5}]},' +
      '"sessions":{"alice":{"plants":[{"id":2,"tags":["a"]}]}}}'
    const { logger, lines } = fakeLogger()
    const writer = createStateWriter(file, () => text, logger)
    writer.changed()
    await writer.flush()
    writer.close()

    expect(readFileSync(file, 'utf8')).toBe(text)
    const document = await readStateFile(file)
    const [fern] = document!.data.plants as Array<Record<string, unknown>>
    expect(fern!.id).toBeInstanceOf(LosslessNumber)
    expect((fern!.id as LosslessNumber).value).toBe('9007199254740993')
    expect(fern!.name).toBe('Fern')
    expect(fern!.price).toBe(1.5)
    expect(document!.sessions).toEqual({ alice: { plants: [{ id: 2, tags: ['a'] }] } })
    expect(document!.version).toBe(1)
    expect(lines.error).toEqual([])
  })

  it('reads a file without sessions as one with none', async () => {
    const dir = await tempDir('state-file-', { 'data.json': { version: 1, data: { plants: [] } } })
    expect(await readStateFile(join(dir, 'data.json'))).toEqual({ version: 1, data: { plants: [] }, sessions: {} })
  })

  const invalid: Array<[string, string, string]> = [
    ['corrupt JSON', '{"version":1,"data":{"plants":[{"id":1}', 'it is not JSON'],
    ['JSON cut short, with where', '{"version":1,\n"data":', 'line 2, column 8'],
    ['an empty file', '', 'it is empty'],
    ['a file of blanks', ' \n\t\n', 'it is empty'],
    ['a wrong version', '{"version":2,"data":{}}', 'version is 2, this mock reads 1'],
    ['no version', '{"data":{}}', 'version is missing, this mock reads 1'],
    ['a version as a string', '{"version":"1","data":{}}', 'version is "1", this mock reads 1'],
    ['no data', '{"version":1}', 'data is missing'],
    ['data not an object', '{"version":1,"data":[]}', 'data is not an object, it is an array'],
    ['records not an array', '{"version":1,"data":{"plants":{}}}', 'data.plants is not an array'],
    ['a record not an object', '{"version":1,"data":{"plants":[{"id":1},7]}}', 'data.plants[1] is not an object'],
    ['a session not an object', '{"version":1,"data":{},"sessions":{"alice":[]}}', 'sessions.alice is not an object'],
    [
      "a session's record not an object",
      '{"version":1,"data":{},"sessions":{"alice":{"plants":[null]}}}',
      'sessions.alice.plants[0] is not an object, it is null',
    ],
    ['sessions not an object', '{"version":1,"data":{},"sessions":3}', 'sessions is not an object, it is a number'],
    ['the top level an array', '[]', 'it holds an array'],
    ['a field of another file', '{"version":1,"data":{},"name":"x"}', 'name is not a field of a state file'],
    ['a key twice', '{"version":1,"data":{"plants":[]},"data":{}}', 'the key "data" appears twice'],
    ['a resource name that needs quoting', '{"version":1,"data":{"a b":1}}', 'data["a b"] is not an array'],
    [
      'nesting deep enough to overflow a recursive parser',
      `{"version":1,"data":{"plants":[{"deep":${'['.repeat(200_000)}${']'.repeat(200_000)}}]}}`,
      'it nests too deeply to read',
    ],
  ]

  it.each(invalid)('refuses %s as not the mock’s, naming the file and the problem', async (_, text, problem) => {
    const dir = await tempDir('state-file-', { 'data.json': text })
    const file = join(dir, 'data.json')
    const error = await expectStartupError(readStateFile(file), 'state_file_invalid')
    expect(error.message).toContain(file)
    expect(error.message).toContain(problem)
    expect(readFileSync(file, 'utf8')).toBe(text)
  })

  it('reads a file that starts with a byte order mark', async () => {
    const dir = await tempDir('state-file-', { 'data.json': '\ufeff{"version":1,"data":{}}' })
    expect(await readStateFile(join(dir, 'data.json'))).toEqual({ version: 1, data: {}, sessions: {} })
  })

  it('refuses a path it cannot read as unreadable, naming it', async () => {
    const dir = await tempDir('state-file-')
    const folder = join(dir, 'data.json')
    mkdirSync(folder)
    const error = await expectStartupError(readStateFile(folder), 'state_file_unreadable')
    expect(error.message).toContain(folder)
    expect(error.message).toContain('it is a folder')
  })
})

describe('createStateWriter', () => {
  it('writes a burst of 1,000 changes in a few writes, the last snapshot last', async () => {
    const dir = await tempDir('state-file-')
    const file = join(dir, 'data.json')
    const { state, snapshot } = snapshotOf(documentText('plant 0'))
    const writer = createStateWriter(file, snapshot, fakeLogger().logger)
    for (let i = 1; i <= 1000; i++) {
      state.text = documentText(`plant ${i}`)
      writer.changed()
    }
    await writer.flush()
    writer.close()
    expect(state.calls).toBeGreaterThanOrEqual(1)
    expect(state.calls).toBeLessThanOrEqual(5)
    expect(readFileSync(file, 'utf8')).toBe(documentText('plant 1000'))
    expect(temporaryFiles(dir)).toEqual([])
  })

  it('writes after a change without being asked to', async () => {
    const dir = await tempDir('state-file-')
    const file = join(dir, 'data.json')
    const writer = createStateWriter(file, () => documentText('Fern'), fakeLogger().logger, { delayMs: 5 })
    writer.changed()
    await eventually('the state file', () => existsSync(file))
    await writer.flush()
    writer.close()
    expect(readFileSync(file, 'utf8')).toBe(documentText('Fern'))
  })

  it('writes during a stream of changes that never pauses, within the longest delay', async () => {
    const dir = await tempDir('state-file-')
    const file = join(dir, 'data.json')
    const { state, snapshot } = snapshotOf(documentText('plant 0'))
    const writer = createStateWriter(file, snapshot, fakeLogger().logger, { delayMs: 60_000, maxDelayMs: 20 })
    for (let i = 1; i <= 40 && state.calls === 0; i++) {
      state.text = documentText(`plant ${i}`)
      writer.changed()
      await sleep(10)
    }
    expect(state.calls).toBeGreaterThan(0)
    await writer.flush()
    writer.close()
    expect(readFileSync(file, 'utf8')).toBe(state.text)
  })

  it('writes a change made during a write after it', async () => {
    const dir = await tempDir('state-file-')
    const file = join(dir, 'data.json')
    const { state, snapshot } = snapshotOf(documentText('first'))
    const writer = createStateWriter(file, snapshot, fakeLogger().logger, { delayMs: 1 })
    writer.changed()
    const first = writer.flush()
    state.text = documentText('second')
    writer.changed()
    await first
    expect(readFileSync(file, 'utf8')).toBe(documentText('first'))
    await eventually('the second write', () => readFileSync(file, 'utf8') === documentText('second'))
    await writer.flush()
    writer.close()
    expect(state.calls).toBe(2)
    expect(temporaryFiles(dir)).toEqual([])
  })

  it('writes nothing when nothing changed', async () => {
    const dir = await tempDir('state-file-')
    const { state, snapshot } = snapshotOf(documentText('Fern'))
    const writer = createStateWriter(join(dir, 'data.json'), snapshot, fakeLogger().logger)
    await writer.flush()
    writer.flushSync()
    writer.close()
    expect(state.calls).toBe(0)
    expect(readdirSync(dir)).toEqual([])
  })

  it('writes synchronously on flushSync', async () => {
    const dir = await tempDir('state-file-')
    const file = join(dir, 'data.json')
    const { state, snapshot } = snapshotOf(documentText('Fern'))
    const writer = createStateWriter(file, snapshot, fakeLogger().logger)
    writer.changed()
    writer.flushSync()
    expect(readFileSync(file, 'utf8')).toBe(documentText('Fern'))
    expect(state.calls).toBe(1)
    writer.flushSync()
    expect(state.calls).toBe(1)
    writer.close()
    expect(temporaryFiles(dir)).toEqual([])
  })

  it('never lets a write in progress put an older document back over a flushSync', async () => {
    const dir = await tempDir('state-file-')
    const file = join(dir, 'data.json')
    const { state, snapshot } = snapshotOf(documentText('older'))
    const writer = createStateWriter(file, snapshot, fakeLogger().logger)
    writer.changed()
    const inProgress = writer.flush()
    state.text = documentText('newer')
    writer.changed()
    writer.flushSync()
    expect(readFileSync(file, 'utf8')).toBe(documentText('newer'))
    await inProgress
    await writer.flush()
    writer.close()
    expect(readFileSync(file, 'utf8')).toBe(documentText('newer'))
    expect(temporaryFiles(dir)).toEqual([])
  })

  it('logs a failed write once per reason, keeps the data unwritten and writes it at the next flush', async () => {
    const dir = await tempDir('state-file-')
    const folder = join(dir, 'later')
    const file = join(folder, 'data.json')
    const { logger, lines } = fakeLogger()
    const { snapshot } = snapshotOf(documentText('Fern'))
    const writer = createStateWriter(file, snapshot, logger, { delayMs: 1, maxDelayMs: 5 })
    expect(() => writer.changed()).not.toThrow()
    await writer.flush()
    writer.changed()
    await writer.flush()
    writer.flushSync()
    expect(lines.error).toHaveLength(1)
    expect(lines.error[0]).toContain(file)
    expect(lines.error[0]).toContain(`the folder ${folder} does not exist`)

    mkdirSync(folder)
    await writer.flush()
    writer.close()
    expect(readFileSync(file, 'utf8')).toBe(documentText('Fern'))
    expect(lines.info).toEqual([`the state file ${file} is written again`])
    expect(lines.error).toHaveLength(1)
    expect(temporaryFiles(dir)).toEqual([])
    expect(temporaryFiles(folder)).toEqual([])
  })

  it('removes its temporary file when the rename fails, async or sync', async () => {
    const dir = await tempDir('state-file-')
    const file = join(dir, 'data.json')
    mkdirSync(join(file, 'in-the-way'), { recursive: true })
    const { logger, lines } = fakeLogger()
    const writer = createStateWriter(file, () => documentText('Fern'), logger)
    writer.changed()
    await writer.flush()
    expect(temporaryFiles(dir)).toEqual([])
    writer.flushSync()
    writer.close()
    expect(temporaryFiles(dir)).toEqual([])
    expect(lines.error).toHaveLength(1)
    expect(lines.error[0]).toContain(`cannot write the state file ${file}`)
  })

  it('logs a snapshot that throws as a failed write, never throwing from changed or flush', async () => {
    const dir = await tempDir('state-file-')
    const { logger, lines } = fakeLogger()
    const writer = createStateWriter(
      join(dir, 'data.json'),
      () => {
        throw new RangeError('Invalid string length')
      },
      logger,
    )
    writer.changed()
    await writer.flush()
    writer.flushSync()
    writer.close()
    expect(lines.error).toHaveLength(1)
    expect(lines.error[0]).toContain('Invalid string length')
    expect(readdirSync(dir)).toEqual([])
  })

  it('writes no more on its own once closed, but still when flushed', async () => {
    const dir = await tempDir('state-file-')
    const file = join(dir, 'data.json')
    const { state, snapshot } = snapshotOf(documentText('Fern'))
    const writer = createStateWriter(file, snapshot, fakeLogger().logger, { delayMs: 0, maxDelayMs: 0 })
    writer.close()
    writer.changed()
    await sleep(30)
    expect(state.calls).toBe(0)
    await writer.flush()
    expect(readFileSync(file, 'utf8')).toBe(documentText('Fern'))
  })

  it('removes temporary files left by a process that died mid-write, and no other file', async () => {
    const dir = await tempDir('state-file-')
    const file = join(dir, 'data.json')
    const deadPid = 2_147_483_646
    const left = [`data.json.${deadPid}.3.tmp`, `data.json.${process.pid}.9999.tmp`]
    const kept = ['data.json', 'data.json.tmp', `other.json.${deadPid}.1.tmp`, `data.json.${process.ppid}.1.tmp`]
    for (const name of [...left, ...kept]) writeFileSync(join(dir, name), '{')
    createStateWriter(file, () => '{}', fakeLogger().logger).close()
    expect(readdirSync(dir).sort()).toEqual([...kept].sort())
  })
})
