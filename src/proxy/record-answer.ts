import { join } from 'pathe'
import type { Files } from '../common/files.js'
import type { Violation } from '../errors/index.js'
import type { Redaction } from '../journal/journal-entry.js'
import type { OperationDescription } from '../openapi/operations.js'
import type { RequestData } from '../common/request.js'
import { SEED_FOLDER } from '../responses/fixtures.js'
import type { HeaderContext } from '../responses/header-context.js'
import { parsePrefer } from '../responses/prefer.js'
import type { UpstreamAnswer } from './check-upstream-answer.js'
import {
  type RecordedFixture,
  type RecordedOperation,
  fixtureOfAnswer,
  recordedResponseOf,
  streamItemProblem,
} from './fixture-of-answer.js'
import { requestHash } from './request-hash.js'
import type { ItemFraming } from './read-upstream-stream.js'
import { CREDENTIAL_HEADERS } from '../journal/redaction-of.js'
import type { PlatformCrypto } from '../common/platform.js'
import { afterThisTurn } from '../internal/later.js'
import { utf8Text } from '../internal/bytes.js'
import type { DeclaredMedia } from '../responses/declared-responses.js'
import { MAX_UPSTREAM_BODY } from '../common/network.js'

/** Proxy mode's `--record DIR`: upstream answers written as fixtures, for `--fixtures DIR` to replay. */
export interface Recorder {
  /**
   * Writes an answer that keeps the contract as a fixture of the operation, in the background: returns
   * at once and never throws; what is not written is logged.
   */
  record(
    operation: RecordedOperation,
    request: RequestData,
    requestBody: Uint8Array | undefined,
    answer: UpstreamAnswer,
  ): void
  /**
   * Starts the recording of a streamed answer (#31 §2) that kept the contract so far: its items are
   * kept as they pass, and written as a stream fixture once it ends whole (`StreamRecording`).
   */
  recordStream(operation: RecordedOperation, status: number, framing: ItemFraming, item: DeclaredMedia): StreamRecording
  /** Logs that an answer breaking the contract is not recorded, once per operation, status and violations. */
  passOver(operation: RecordedOperation, status: number, violations: readonly Violation[]): void
  /** Resolves once no write is pending: for tests, and for a server that closes. */
  idle(): Promise<void>
}

/**
 * One streamed answer being recorded: written as `<code>.stream.jsonl` (one JSON item a line), or for
 * Server-Sent Events `<code>.stream.sse` (the events as they came, names and ids kept; blocks with no
 * data, such as comments and `retry:`, left out), the stream fixtures the mock serves.
 */
export interface StreamRecording {
  /** An item that passed, with its value; or an SSE stream's closing event (`data: [DONE]`), which has none. */
  keep(bytes: Uint8Array, item?: { value: unknown }): void
  /** The stream will not be written: it broke the contract, or did not end whole. Told once an operation, status and reason. */
  drop(reason: string): void
  /** The stream ended whole: its fixture is written in the background, unless it was dropped. */
  end(): void
}

/** What recording needs of the engine. */
export interface RecorderSetup {
  /** The folder written into, absolute (`--record`). */
  dir: string
  /** The file system the fixtures are written to. */
  files: Files
  /** Names a fixture by its request's hash (`requestHash`). */
  sha256: PlatformCrypto['sha256']
  /** Replace fixtures already there (`--record-overwrite`). */
  overwrite: boolean
  /** The operations as described, by index: each one's fixture folder, and the headers its responses declare. */
  descriptions: readonly OperationDescription[]
  /** Where bodies and headers are checked as start-up checks fixtures: the response view, its Ajvs, the logger. */
  checking: HeaderContext
  /** The description's apiKey headers and query parameters: never written, never hashed. */
  redaction: Redaction
}

/** Writes waiting at most: an upstream faster than the disk costs recordings, never memory. */
export const MAX_PENDING_RECORDINGS = 64

/** Reasons told at most; past them none is (a drifting upstream could make new ones without end). */
const MAX_TOLD = 1024

/** A fixture name (`FIXTURE_FILE`): `Prefer: example=` may name a recording with one. */
const FIXTURE_NAME = /^[A-Za-z0-9][\w-]*$/

/**
 * Records each answer it is given as `DIR/<operation folder>/<code>.<name>.json`, where code is the
 * declared response the status matched (`200`, or `2XX` or `default` for a status they cover, as a
 * fixture must be named), and name is the request's `Prefer: example=NAME` where that is a fixture
 * name, else `requestHash`. Beside it goes `<code>.<name>.headers.json` with the headers the response
 * declares, when the answer carried any but credentials. Replay serves a fixture to the request whose
 * hash names it; for any other request of the operation, the first answer this run records for each
 * code is also written as `<code>.json`, the default fixture, unless one is there already.
 *
 * Without `overwrite`, no file already there is replaced (`wx`): a second run only adds requests the
 * first did not see. That is told once per run at info level, not per file: on a re-run every answer
 * would say it, and an answer to a request this run already recorded is kept the same way.
 * With `overwrite`, a named fixture is replaced by its latest answer (its old sidecar removed where
 * the new answer has none), and the default by the first answer of this run, never by a later one,
 * so that it stays the first recorded answer.
 *
 * A streamed answer (#31 §2) that keeps the contract to its end is written as `<code>.stream.jsonl`
 * (one JSON item a line), or for Server-Sent Events `<code>.stream.sse` (its events with data, as
 * they came): the first of each code this run, as the default fixture is; none is named by a request.
 *
 * What cannot be a fixture (`fixtureOfAnswer`) is told once per operation, status and reason. At
 * most `MAX_PENDING_RECORDINGS` answers wait to be written; past that an answer is not recorded, told
 * once until the backlog is written.
 */
export function createRecorder(setup: RecorderSetup): Recorder {
  const { dir, files, overwrite, descriptions, checking, redaction, sha256 } = setup
  const { logger } = checking
  const credentials = new Set([...CREDENTIAL_HEADERS, ...redaction.headers])
  const told = new Set<string>()
  const tellOnce = (key: string, message: string) => {
    if (told.has(key) || told.size >= MAX_TOLD) return
    told.add(key)
    logger.warn(message)
  }
  /** `<folder>/<code>` whose default fixture this run has settled: written, or found there. */
  const settled = new Set<string>()
  let keptTold = false
  const keep = (file: string) => {
    if (keptTold) return
    keptTold = true
    logger.info(
      `Kept ${file}, which was there already, as recording keeps every fixture it finds: pass --record-overwrite to replace them.`,
    )
  }

  /** Writes a body and its sidecar unless the body is there already (told once); the body's path when written. */
  const writeFixture = async (folder: string, base: string, fixture: RecordedFixture) => {
    const file = join(folder, `${base}.json`)
    if (!(await writeOnce(file, fixture.json, overwrite, files))) {
      keep(file)
      return undefined
    }
    const sidecar = join(folder, `${base}.headers.json`)
    if (fixture.headers) await writeOnce(sidecar, `${JSON.stringify(fixture.headers, null, 2)}\n`, overwrite, files)
    else if (overwrite) await files.remove(sidecar)
    return file
  }

  const save = async (
    operation: RecordedOperation,
    request: RequestData,
    body: Uint8Array | undefined,
    answer: UpstreamAnswer,
  ) => {
    const { fixtureKey, responses } = descriptions[operation.index]!
    const answerOf = `the ${answer.status} answer of ${operation.id}`
    if (!isFolderName(fixtureKey))
      return tellOnce(
        `${operation.index} folder`,
        `Not recording ${answerOf}: its fixture folder "${fixtureKey}" cannot be read back from ${dir}.`,
      )
    const fixture = fixtureOfAnswer(operation, responses, answer, checking, credentials)
    if ('problem' in fixture)
      return tellOnce(
        `${operation.index} ${fixture.code} ${fixture.problem}`,
        `Not recording ${answerOf}: ${fixture.problem}.`,
      )
    if (fixture.headersProblem)
      tellOnce(
        `${operation.index} ${fixture.code} ${fixture.headersProblem}`,
        `Recording ${answerOf} without its headers, which start-up would refuse: ${fixture.headersProblem}.`,
      )
    const name = exampleNameOf(request) ?? requestHash(request, body, redaction.query, sha256)
    // Decided before the first await, so the first answer recorded is the first answer given.
    const first = !settled.has(`${fixtureKey}/${fixture.code}`)
    settled.add(`${fixtureKey}/${fixture.code}`)
    const folder = join(dir, fixtureKey)
    await files.makeFolder(folder).catch((error: unknown) => {
      throw new Error(`could not make the folder ${folder} (${reasonOf(error)})`)
    })
    const written = [await writeFixture(folder, `${fixture.code}.${name}`, fixture)]
    if (first) written.push(await writeFixture(folder, fixture.code, fixture))
    const recorded = written.filter((file) => file !== undefined)
    if (recorded.length) logger.info(`Recorded ${answerOf} as ${recorded.join(' and ')}.`)
  }

  /** Writes a stream fixture, the first of its operation and code this run, as the default fixture is. */
  const saveStream = async (operation: RecordedOperation, status: number, extension: string, text: string) => {
    const { fixtureKey } = descriptions[operation.index]!
    const answerOf = `the ${status} stream of ${operation.id}`
    if (!isFolderName(fixtureKey))
      return tellOnce(
        `${operation.index} folder`,
        `Not recording ${answerOf}: its fixture folder "${fixtureKey}" cannot be read back from ${dir}.`,
      )
    const recorded = recordedResponseOf(operation.responses, status)
    if ('problem' in recorded)
      return tellOnce(
        `${operation.index} ${status} ${recorded.problem}`,
        `Not recording ${answerOf}: ${recorded.problem}.`,
      )
    const key = `${fixtureKey}/${recorded.response.code}.${extension}`
    if (settled.has(key)) return
    settled.add(key)
    const folder = join(dir, fixtureKey)
    await files.makeFolder(folder).catch((error: unknown) => {
      throw new Error(`could not make the folder ${folder} (${reasonOf(error)})`)
    })
    const file = join(folder, `${recorded.response.code}.${extension}`)
    if (await writeOnce(file, text, overwrite, files)) logger.info(`Recorded ${answerOf} as ${file}.`)
    else keep(file)
  }

  let pending = 0
  let behindTold = false
  const waiting: Array<() => void> = []
  const run = async (what: string, save: () => Promise<void>) => {
    try {
      await save()
    } catch (error) {
      logger.warn(`Not recording ${what}: ${reasonOf(error)}.`)
    } finally {
      if (--pending === 0) {
        behindTold = false
        for (const resolve of waiting.splice(0)) resolve()
      }
    }
  }
  /** Runs a write after this turn, unless too many are waiting already (told once until they are written). */
  const enqueue = (what: string, save: () => Promise<void>) => {
    if (pending >= MAX_PENDING_RECORDINGS) {
      if (!behindTold)
        logger.warn(
          `Not recording answers for now: ${pending} are still being written to ${dir}; recording resumes once they are.`,
        )
      behindTold = true
      return
    }
    pending++
    // After this turn's answers are on their way: the checks and the hash stay off the request path.
    // A logger that throws must not end the process, so even that rejection is caught.
    afterThisTurn(() => void run(what, save).catch(() => {}))
  }
  return {
    record(...args) {
      enqueue(`the ${args[3].status} answer of ${args[0].id}`, () => save(...args))
    },
    recordStream(operation, status, framing, item) {
      const extension = framing === 'sse' ? 'stream.sse' : 'stream.jsonl'
      const lines: string[] = []
      let size = 0
      let dropped = false
      const drop = (reason: string) => {
        if (dropped) return
        dropped = true
        lines.length = 0
        tellOnce(
          `${operation.index} ${status} stream ${reason}`,
          `Not recording the ${status} stream of ${operation.id}: ${reason}.`,
        )
      }
      return {
        keep(bytes, kept) {
          if (dropped || (framing !== 'sse' && !kept)) return
          const problem = kept && streamItemProblem(checking, item, kept.value)
          if (problem) return drop(problem)
          // JSON Lines and JSON text sequences alike are kept one JSON a line; events as they came.
          const line = framing === 'sse' ? utf8Text(bytes) : `${JSON.stringify(kept!.value)}\n`
          size += line.length
          if (size > MAX_UPSTREAM_BODY)
            return drop(`it is longer than ${MAX_UPSTREAM_BODY / 1024 / 1024} MiB, the most a recording holds`)
          lines.push(line)
        },
        drop,
        end() {
          if (dropped) return
          const text = lines.join('')
          lines.length = 0
          enqueue(`the ${status} stream of ${operation.id}`, () => saveStream(operation, status, extension, text))
        },
      }
    },
    passOver(operation, status, violations) {
      const problems = violations.map((v) => `${v.path} ${v.message}`).join('; ')
      tellOnce(
        `${operation.index} ${status} ${problems}`,
        `Not recording the ${status} answer of ${operation.id}: it breaks the contract (${problems}).`,
      )
    },
    idle: () => (pending === 0 ? Promise.resolve() : new Promise((resolve) => waiting.push(resolve))),
  }
}

/**
 * Writes a file, unless it is there already and `replace` is not set: whether it was written. A
 * replacement is whole (`Files.replaceText`): two answers to the same request written at once leave
 * one of them, never the two mixed.
 */
async function writeOnce(file: string, text: string, replace: boolean, files: Files): Promise<boolean> {
  try {
    if (!replace) return await files.writeNew(file, text)
    await files.replaceText(file, text)
    return true
  } catch (error) {
    throw new Error(`could not write ${file} (${reasonOf(error)})`)
  }
}

/** The name `Prefer: example=` gives, where it is a fixture's: not `default` (`200.json`) nor `headers` (a sidecar). */
function exampleNameOf(request: RequestData): string | undefined {
  const { example } = parsePrefer(request.header('prefer'))
  if (example === undefined || example === 'default' || example === 'headers') return undefined
  return FIXTURE_NAME.test(example) ? example : undefined
}

/** A folder `loadFixtures` reads back as an operation's, inside the recording folder: an operationId may hold `/` or `..`. */
function isFolderName(key: string): boolean {
  return key !== '' && !key.startsWith('.') && key !== SEED_FOLDER && !/[/\\\0]/.test(key)
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
