import { type MockServer, startMockServer } from '../node/start-mock-server.js'
import type { MockOptions } from '../common/config.js'
import type { ConsoleLogger } from '../common/log.js'
import { StartupError } from '../errors/index.js'
import { closeThenExit } from '../command-line/report.js'
import { relayAdmin } from '../relay/admin-relay.js'
import { answerRelayed } from '../relay/answer-relayed.js'
import type { FetchHandler } from '../relay/relay-link.js'
import { createIpcRecordStore } from './ipc-record-store.js'
import { type Run, type ToPrimary, type ToWorker, isMessage } from './messages.js'
import { createPrimaryLink } from './primary-link.js'
import type { LiveMock } from '../admin/mock-handle.js'
import { coverageOf, writeCoverageReport } from '../admin/admin-coverage.js'
import type { CoverageReport } from '../coverage/coverage-report.js'
import { finishCoverage } from '../command-line/coverage-at-exit.js'
import { type FromWorker, journalNumbering, mergeCoverage } from '../relay/merge-reads.js'
import { growYoungGenerationToCap } from '../command-line/small-heap.js'

/** Where the primary tells a worker its slot and whether it prints the start-up lines: `PLANT_STORE_MOCK_WORKER=<slot>:<1|0>`. */
export const WORKER_VARIABLE = 'PLANT_STORE_MOCK_WORKER'

/**
 * One worker of `--workers N`: the whole mock on the shared port, its data in the primary
 * (`ipc-record-store.ts`) and its admin API relayed (`admin-relay.ts`). It answers nothing until
 * the primary says it has applied every earlier admin write; it reports its start-up failure to the
 * primary, which prints it once; it stops when the primary says so (or is gone), finishing its
 * in-flight requests. SIGINT and SIGTERM are the primary's to act on: a terminal's Ctrl-C reaches
 * every process of the group.
 */
export async function runWorker(options: MockOptions, logger: ConsoleLogger): Promise<void> {
  const [slotText, announce] = (process.env[WORKER_VARIABLE] ?? '0:1').split(':')
  const slot = Number(slotText)
  const link = createPrimaryLink()
  const store = createIpcRecordStore(link)
  let openGate = () => {}
  let gate: Promise<void> | undefined = new Promise((resolve) => (openGate = resolve))
  let inner: FetchHandler | undefined
  let live: (() => LiveMock) | undefined
  const relay = relayAdmin(link, slot)
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => {})

  /** Every worker's coverage, merged, written and checked by this one (the primary holds no counts). */
  const finishAllCoverage = async (): Promise<number> => {
    const { engine, state } = live!()
    const others = (await link.call({ kind: 'gather', gather: { what: 'coverage' } }, 'the coverage at exit')) as Array<
      FromWorker<CoverageReport>
    >
    const report = mergeCoverage([{ slot, value: coverageOf(engine, state) }, ...others])
    const covered = {
      coverage: () => report,
      writeCoverageReport: async () => (await writeCoverageReport(engine, state, report)) ?? [],
    }
    return finishCoverage(covered, options, logger)
  }

  link.onRun(async (run: Run) => {
    if (run.kind === 'serve') return void ((gate = undefined), openGate())
    if (run.kind === 'finish-coverage') return finishAllCoverage()
    return answerRelayed(run, inner!, live!())
  })

  let server: MockServer
  try {
    server = await startMockServer(
      { ...options, logger: announce === '1' ? logger : { ...logger, info: () => {}, warn: () => {} } },
      {
        // With `--store` each worker reaches the store itself; the primary's relay is for the in-memory data.
        records: options.store ? undefined : (engine) => (engine.stateful ? store : undefined),
        wrapFetch: (handle, current) => {
          inner = handle
          live = current
          // With `--store` each worker is a replica on the store, which relays its admin API (`join-replicas.ts`).
          const relayed = options.store ? handle : relay(handle, current)
          return (request, env) => (gate ? gate.then(() => relayed(request, env)) : relayed(request, env))
        },
        serving: () => gate === undefined,
      },
    )
  } catch (error) {
    const code = error instanceof StartupError ? error.code : undefined
    const message = code ? (error as Error).message : String((error as Error)?.stack ?? error)
    // Printed once, by the primary; the exit waits until the primary has the message.
    process.exitCode = 1
    return void process.send!({ t: 'failed', message, code } satisfies ToPrimary, () => process.disconnect())
  }
  growYoungGenerationToCap()
  let stopping = false
  const stop = () => {
    if (stopping) return
    stopping = true
    closeThenExit(server, logger)
  }
  process.on('message', (message: unknown) => isMessage<ToWorker>(message) && message.t === 'stop' && stop())
  process.on('disconnect', stop)
  if (!process.connected) return stop()
  // Before any request (the gate holds them until the primary says serve): ids unique over the workers.
  const { first, step } = journalNumbering(slot)
  if (!options.store) live!().state.journal.numberEntries(first, step)
  link.send({ t: 'listening', url: server.url, title: server.title, operations: server.operations })
}
