import cluster, { type Worker } from 'node:cluster'
import type { MockOptions } from '../common/config.js'
import { createEngine } from '../engine/engine.js'
import { StartupError } from '../errors/index.js'
import { silentLogger } from '../common/log.js'
import type { ConsoleLogger } from '../common/log.js'
import type { EnvironmentSetting } from '../command-line/environment-reader.js'
import { reportFailure, startLine, writeUrlFile } from '../command-line/report.js'
import { type OpenedRecords, openRecords } from '../engine/open-records.js'
import { type Member, createHub } from './primary-hub.js'
import { createRecordsServer } from './primary-records.js'
import { type ToPrimary, isMessage } from './messages.js'
import { WORKER_VARIABLE } from './worker.js'
import { nodePlatform } from '../node/node-platform.js'

/** Unexpected worker ends within `DEATH_WINDOW_MS` that make the primary give up instead of starting another. */
const MAX_DEATHS = 3
const DEATH_WINDOW_MS = 30_000
/** How long the workers get to finish their in-flight requests on SIGTERM: within docker stop's 10 s. */
const STOP_GRACE_MS = 9_500

/**
 * The primary of `--workers N`: keeps the data (`--stateful`, and writes `--state-file`), forks N
 * workers that each serve the whole mock on the one port, prints the start line once all of them
 * answer, relays between them (`primary-hub.ts`), replaces a worker that ends unexpectedly (and gives
 * up, exit 1, when they keep ending), and on SIGINT or SIGTERM stops them all gracefully, exit 0.
 * A start-up failure is printed once, as a single process prints it, with exit code 1.
 */
export async function runPrimary(
  options: MockOptions,
  count: number,
  logger: ConsoleLogger,
  unfiltered: ConsoleLogger,
  environment: readonly EnvironmentSetting[],
): Promise<void> {
  let opened: OpenedRecords | undefined
  let records: ((payload: string) => string | undefined) | undefined
  if ((options.stateful || options.stateFile) && !options.store) {
    try {
      // Checked here once, quietly: the first worker prints the description's warnings and resource lines.
      const engine = await createEngine({ ...options, watch: false }, silentLogger, {
        deferExampleChecks: true,
        platform: nodePlatform,
      })
      opened = await openRecords(engine)
      if (opened) records = createRecordsServer(opened.records, engine.stateful!.resources)
    } catch (error) {
      return reportFailure(unfiltered, error, environment)
    }
  }
  const hub = createHub(logger, records)
  let started = false
  let stopping = false
  let failed = false
  const deaths: number[] = []

  const fork = (slot: number, announce: boolean) => {
    const worker = cluster.fork({ [WORKER_VARIABLE]: `${slot}:${announce ? 1 : 0}` })
    const member: Member = { worker, slot, serving: false }
    hub.members.set(worker.id, member)
    worker.on('message', (message: unknown) => {
      if (!isMessage<ToPrimary>(message)) return
      if (message.t === 'listening') hub.admit(member, () => ready(message))
      else if (message.t === 'failed') failedToStart(message)
      else hub.handle(member, message)
    })
  }

  const ready = (listening: Extract<ToPrimary, { t: 'listening' }>) => {
    if (started || [...hub.members.values()].some((member) => !member.serving)) return
    started = true
    writeUrlFile(listening.url)
    logger.info(startLine(listening, options))
  }

  const failedToStart = ({ message, code }: Extract<ToPrimary, { t: 'failed' }>) => {
    if (started) return logger.error(`a new worker could not start: ${message}${code ? ` [${code}]` : ''}`)
    if (failed) return
    failed = true
    reportFailure(unfiltered, code ? new StartupError(code as never, message) : message, environment)
    // Nothing was served yet: the others need no grace.
    for (const { worker } of hub.members.values()) worker.kill('SIGKILL')
    stopAll(1)
  }

  cluster.on('exit', (worker: Worker, code: number | null, signal: string | null) => {
    const member = [...hub.members.values()].find((m) => m.worker === worker)
    if (member) hub.forget(member)
    if (stopping || failed) return void (hub.members.size === 0 && void finish())
    deaths.push(Date.now())
    while (deaths[0]! < Date.now() - DEATH_WINDOW_MS) deaths.shift()
    const how = signal ? `signal ${signal}` : `code ${code}`
    if (deaths.length >= MAX_DEATHS) {
      logger.error(
        `worker ${worker.process.pid} ended (${how}), the ${deaths.length}th within ${DEATH_WINDOW_MS / 1000} s; stopping the mock.`,
      )
      return stopAll(1)
    }
    logger.error(`worker ${worker.process.pid} ended unexpectedly (${how}); starting another.`)
    fork(member?.slot ?? 0, false)
  })

  let exitCode = 0
  let stopTimer: NodeJS.Timeout | undefined
  function stopAll(code: number) {
    stopping = true
    exitCode = Math.max(exitCode, code)
    if (hub.members.size === 0) return void finish()
    for (const { worker } of hub.members.values()) if (worker.isConnected()) worker.send({ t: 'stop' })
    stopTimer = setTimeout(() => {
      for (const { worker } of hub.members.values()) worker.kill('SIGKILL')
    }, STOP_GRACE_MS).unref()
  }

  async function finish() {
    clearTimeout(stopTimer)
    // Every answered change is in the state file before the primary exits.
    await opened?.writer?.flush()
    opened?.writer?.close()
    logger.flush()
    process.exit(exitCode)
  }

  /** `--coverage-report` and `--coverage-min` (#29): the workers' counts, written and checked before they stop. */
  async function finishCoverage(): Promise<number> {
    if (!started || (options.coverageReport === undefined && options.coverageMin === undefined)) return 0
    try {
      return await hub.finishCoverage()
    } catch (error) {
      logger.error(`could not finish the coverage of the workers: ${(error as Error).message}`)
      return 1
    }
  }

  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.on(signal, () => {
      if (stopping) {
        for (const { worker } of hub.members.values()) worker.kill('SIGKILL')
        process.exit(130) // a second signal: the user wants out now
      }
      stopping = true
      logger.info(`${signal}: finishing in-flight requests, then stopping`)
      void finishCoverage().then(stopAll)
    })
  for (let slot = 0; slot < count; slot++) fork(slot, slot === 0)
}
