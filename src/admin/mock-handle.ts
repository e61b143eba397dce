import { stringify as stringifyLossless } from 'lossless-json'
import type { Engine } from '../engine/engine.js'
import { describeStub } from './admin-stub-routes.js'
import type { JournalEntry } from '../journal/journal-entry.js'
import type { JournalFilter } from '../journal/journal-filter.js'
import { readStub } from '../rules/stubs.js'
import type { DeliveryFilter, DeliveryRecord, DeliveryWait } from '../events/delivery.js'
import { sendWebhook } from '../pipeline/send-events.js'
import type { OpenedRecords } from '../engine/open-records.js'
import type { SharedStore } from '../engine/shared-store.js'
import type { RecordSets } from '../state/record-store.js'
import type { RuntimeState } from '../engine/runtime-state.js'
import { checkResource, checkedRecords, storeOf } from '../state/steer-records.js'
import { utf8ByteLength } from '../internal/bytes.js'
import type { RequestCheck } from '../verify/verify-check.js'
import { checkVerification } from './admin-verify.js'
import { coverageOf, writeCoverageReport } from './admin-coverage.js'
import type { CoverageReport } from '../coverage/coverage-report.js'
import { errors } from '../errors/index.js'

/** Steering a running mock from a test: scenarios, the request journal, reset. */
export interface MockHandle {
  /** Switches the active scenario, for every client or for one `X-Mock-Session`. Throws on an unknown name. */
  useScenario(name: string, options?: { session?: string }): void
  /** The scenario a request of this session (or of no session) gets. */
  activeScenario(options?: { session?: string }): string
  /**
   * Journaled requests that match every filter given, oldest first: `{ valid: false, status: '4xx', since }`.
   * Each says why it got its status (`reason`) and what it got (`response`: status, headers, body).
   * Authorization, Cookie and Set-Cookie headers are redacted.
   */
  requests(filter?: JournalFilter): JournalEntry[]
  clearRequests(filter?: { session?: string }): void
  /** Scenario back to the start, sessions forgotten, journal emptied, data back to its seed (or only one session's). */
  reset(options?: { session?: string }): void
  /**
   * The data of stateful mode (`stateful: true`); each call throws a `MockError` (status 409) without it.
   * With a shared store (`store`), each call answers with a promise.
   */
  state: MockState
  /** Ends the connection to the shared store (`store`); without one there is nothing to end. `startMockServer`'s `close` does it too. */
  close(): Promise<void>
  /**
   * Adds a runtime stub, tried before the scenario's rules: `mock.stub({ operation: 'addPlant', when:
   * { body: { $.name: 'Poison Ivy' } }, status: 400, times: 1 })`. Throws a `MockError` (status 400)
   * naming what is wrong: an unknown operation, an undeclared status, a body that breaks the schema.
   */
  stub(definition: StubDefinition): StubHandle
  /** Every stub, as `GET /__mock/stubs` lists them. */
  stubs(): Array<Record<string, unknown>>
  /** Removes every stub, or those of one session. */
  removeStubs(options?: { session?: string }): void
  /**
   * Sends one of the description's webhooks now (OpenAPI 3.1 `webhooks`), to `to` (else `--webhook-url`),
   * with `body` (checked against its schema; throws a `MockError` 400 naming what breaks it), else its
   * example or a body made of its schema. Answers the delivery's record, `pending` until it is settled.
   */
  sendWebhook(name: string, options?: { to?: string; body?: unknown; session?: string }): DeliveryRecord
  /** Callbacks and webhooks sent, oldest first, matching every filter given. */
  deliveries(filter?: DeliveryFilter): DeliveryRecord[]
  /** Resolves once `count` (default 1) deliveries matching the filter are settled; rejects after `timeoutMs` (default 5000) saying what it saw. */
  waitForDeliveries(wait?: DeliveryWait): Promise<DeliveryRecord[]>
  /**
   * Checks the journal: `mock.verify({ operation: 'addPlant', status: 400, times: 1, body: { '$.name': 'Fern' } })`.
   * Throws an `AssertionError` (a `VerificationError`) listing the near misses when the count is not met:
   * `times` is exact, `atLeast`/`atMost` bound it, none means at least one. Conditions as in a stub's `when`.
   * A check written wrong throws a `MockError` (status 400) naming the mistake.
   */
  verify(check: RequestCheck): void
  /** Throws an `AssertionError` listing the requests that matched no operation (404, 405), of every session or of one. */
  verifyNoUnmatched(options?: { session?: string }): void
  /** Throws an `AssertionError` listing the requests that broke the description, with their violations. */
  verifyNoViolations(options?: { session?: string }): void
  /** Throws an `AssertionError` naming the runtime stubs that never answered (in the session, when one is given). */
  verifyAllStubsUsed(options?: { session?: string }): void
  /**
   * What the requests exercised of the description since the start or the last `resetCoverage()`
   * (#29): every operation × declared status × media type, with counts; as `GET /__mock/coverage`.
   */
  coverage(options?: { session?: string }): CoverageReport
  /** Starts counting coverage again: everything, or one session's. `reset()` leaves coverage alone. */
  resetCoverage(options?: { session?: string }): void
  /** Writes the `--coverage-report` files now (`coverageReport` option); the paths written. Throws a 409 `MockError` without that option. */
  writeCoverageReport(): Promise<string[]>
}

/** A runtime stub as written: a scenario rule's fields, plus the operation it answers. See docs/conditions-and-stubs.md. */
export interface StubDefinition {
  /** operationId, or `METHOD /path`. */
  operation: string
  when?: Record<string, unknown>
  status?: number
  example?: string
  body?: unknown
  headers?: Record<string, string | number | boolean>
  dynamic?: boolean
  delay?: number | string
  fault?: 'reset' | 'empty' | 'malformed' | 'hang'
  from?: 'state'
  times?: number
  sequence?: Array<
    Omit<
      StubDefinition,
      'operation' | 'when' | 'times' | 'sequence' | 'cycle' | 'session' | 'priority' | 'force' | 'validate'
    >
  >
  cycle?: boolean
  /** Only this `X-Mock-Session`'s requests see it. */
  session?: string
  /** 1 is tried first; default 5; among equals, the newest first. */
  priority?: number
  /** Accept a body or headers that break the declared response (reported with each answer). */
  force?: boolean
  /** `false`: answer requests past their violations. */
  validate?: boolean
}

export interface StubHandle {
  id: number
  /** The journal entries it answered, oldest first. */
  readonly calls: JournalEntry[]
  /** How often it answered, over every session. */
  readonly hits: number
  remove(): void
}

/** Reading and setting the records of stateful mode, of the data without a session or of one. */
export interface MockState {
  /** Every resource's records by name, or one resource's; records as stored, key included (`$scope` on nested ones). */
  get(): Record<string, Array<Record<string, unknown>>>
  get(resource: undefined, options: { session?: string }): Record<string, Array<Record<string, unknown>>>
  get(resource: string, options?: { session?: string }): Array<Record<string, unknown>>
  /** Replaces one resource's records; throws (status 400) naming the record and field when one breaks the resource's schema, and (404) for an unknown resource. */
  set(resource: string, records: unknown[], options?: { session?: string }): void
  /** The data back to its seed: all of it, or one session's. Scenarios and the journal are left as they are. */
  reset(options?: { session?: string }): void
}

/** A reload reads the stubs again against the new description, keeping their ids; one it no longer takes is dropped, and said so. */
export function carryStubs(previous: RuntimeState | undefined, state: RuntimeState, engine: Engine): void {
  for (const stub of previous?.stubs.list() ?? []) {
    try {
      state.stubs.put(readStub(stub.source, engine.rules, stub.id, stub.bytes))
    } catch (error) {
      engine.logger.warn(
        `stub ${stub.id} is removed: the reloaded description does not take it. ${(error as Error).message}`,
      )
    }
  }
}

/** What the handle reads of the app it steers: the one in service, which a reload (`--watch`) replaces. */
export interface LiveMock {
  engine: Engine
  state: RuntimeState
  opened: OpenedRecords | undefined
  store?: SharedStore
}

/** The handle of `createApp().mock` and of `startMockServer()`, over whichever app is live. */
export function handleOf(live: () => LiveMock): MockHandle {
  const current = () => live().state
  return {
    useScenario: (name, options = {}) => current().useScenario(name, options.session),
    activeScenario: (options = {}) => current().activeScenario(options.session).name,
    requests: (filter) => current().journal.listRequests(filter),
    clearRequests: (filter) => current().journal.clearRequests(filter),
    reset: (options = {}) => current().reset(options.session),
    state: {
      get: ((resource?: string, options: { session?: string } = {}) => {
        const { engine, state } = live()
        if (resource !== undefined) checkResource(engine.stateful, resource)
        const sets = storeOf(state.records).get(options.session, resource)
        const pick = (all: RecordSets) => (resource === undefined ? all : all[resource])
        // With a shared store (`store`) the records come with a promise.
        return sets instanceof Promise ? sets.then(pick) : pick(sets)
      }) as MockState['get'],
      set: (resource, records, options = {}) => {
        const { engine, state } = live()
        const store = storeOf(state.records)
        // The in-memory store sets at once; a shared one's promise is handed back (awaitable).
        return store.set(
          options.session,
          resource,
          checkedRecords(engine.stateful, resource, `mock.state.set("${resource}")`, records),
        )
      },
      reset: (options = {}) => storeOf(live().state.records).reset(options.session),
    },
    stub: (definition) => {
      const { engine, state } = live()
      const source = definition as unknown as Record<string, unknown>
      // Measured as JSON, as the admin API measures a stub; lossless-json writes a BigInt too.
      const stub = state.stubs.add(source, engine.rules, utf8ByteLength(stringifyLossless(source) ?? ''))
      const label = `stub ${stub.id}`
      return {
        id: stub.id,
        get calls() {
          return current().journal.listRequests({ answeredBy: label })
        },
        // Looked up by id: a reload (--watch) reads the stub again into a new rule.
        get hits() {
          const live = current().stubs.get(stub.id)
          return live ? current().counters.total(live.rule) : 0
        },
        remove: () => {
          current().stubs.remove(stub.id)
        },
      }
    },
    stubs: () =>
      current()
        .stubs.list()
        .map((stub) => describeStub(stub, current().counters)),
    close: async () => {
      await live().store?.close()
    },
    sendWebhook: (name, options = {}) => sendWebhook(live().engine, current(), { name, ...options }),
    deliveries: (filter) => current().deliveries?.list(filter) ?? [],
    waitForDeliveries: (wait) => current().deliveries?.waitFor(wait) ?? Promise.resolve([]),
    removeStubs: (options = {}) => {
      current().stubs.clear(options.session)
    },
    verify: (check) => checkVerification(live().engine, current(), { ...check }, 'mock.verify()'),
    verifyNoUnmatched: (options = {}) => flagCheck(live(), 'noUnmatched', options),
    verifyNoViolations: (options = {}) => flagCheck(live(), 'noViolations', options),
    verifyAllStubsUsed: (options = {}) => flagCheck(live(), 'allStubsUsed', options),
    coverage: (options = {}) => coverageOf(live().engine, current(), options.session),
    resetCoverage: (options = {}) => current().coverage.reset(options.session),
    async writeCoverageReport() {
      const written = await writeCoverageReport(live().engine, current())
      if (written === undefined) throw errors.coverageReportNotSet()
      return written
    },
  }
}

function flagCheck(
  { engine, state }: LiveMock,
  flag: 'noUnmatched' | 'noViolations' | 'allStubsUsed',
  options: { session?: string },
): void {
  const written = options.session === undefined ? { [flag]: true } : { [flag]: true, session: options.session }
  checkVerification(engine, state, written, `mock.verify${flag[0]!.toUpperCase()}${flag.slice(1)}()`)
}
