import { errors, startupErrors } from '../errors/index.js'
import type { Redaction } from '../journal/journal-entry.js'
import { type Journal, createJournal } from '../journal/journal.js'
import { type Coverage, createCoverage } from '../coverage/coverage.js'
import type { Scenario } from '../scenarios/scenarios.js'
import { RuleCounters } from '../rules/rule-counters.js'
import { StubStore } from '../rules/stubs.js'
import type { Deliverer } from '../events/delivery.js'
import { WebhookTargets } from '../events/webhook-targets.js'
import type { Awaitable, RecordStore } from '../state/record-store.js'
import type { SharedCounts } from './shared-store.js'
import { utf8ByteLength } from '../internal/bytes.js'

/**
 * The mock's runtime state, behind one interface: the active scenario (globally or per session), the
 * journal, and with `--stateful` the data. Each is reached by whole operations (switch a scenario,
 * record a request, create a record, list a page), so that a shared store can implement it later.
 */
export interface RuntimeState {
  /** Every scenario, built-in ones first. */
  listScenarios(): Scenario[]
  /** The scenario a request of this session gets when it names none. */
  activeScenario(session?: string): Scenario
  /** Throws a 400 `MockError` naming the known scenarios when `name` is not one. */
  findScenario(name: string): Scenario
  useScenario(name: string, session?: string): void
  journal: Journal
  /** The data (`--stateful`); `undefined` without. */
  records: RecordStore | undefined
  /** Sessions with a scenario of their own. */
  sessions(): Iterable<[string, Scenario]>
  /** The sender of callbacks and webhooks, and its journal (`GET /__mock/deliveries`). */
  deliveries: Deliverer | undefined
  /** Where each session's webhooks go (`PUT /__mock/webhooks/targets`). */
  webhookTargets: WebhookTargets
  /** Runtime stubs (`POST /__mock/stubs`), tried before the scenario's rules. */
  stubs: StubStore
  /** How often each rule and stub has answered, per session (`times`, `sequence`): this process's answers. */
  counters: RuleCounters
  /** With a shared store (`--store`), the counts over every replica, which decide `times` and `sequence` (#32). */
  sharedCounts: SharedCounts | undefined
  /** What the requests exercised of the description (#29); kept by `reset`, cleared by `POST /__mock/coverage/reset`. */
  coverage: Coverage
  /** Scenario back to the start, sessions forgotten, journal emptied, stubs removed, counters zeroed, data back to its seed; or only one session's. */
  reset(session?: string): Awaitable<void>
}

/** Sessions kept at most; the least recently switched are forgotten first. */
const MAX_SESSIONS = 10_000
/** Longest session name, in UTF-8 bytes: with the count above, sessions hold at most a few megabytes. */
const MAX_SESSION_BYTES = 256

/** What a runtime state is made with besides its scenarios; every part optional. */
export interface RuntimeStateParts {
  /** The state of the version being replaced (`--watch`): its journal and deliveries are kept, and its active scenarios where the new version still has them. */
  previous?: RuntimeState
  redaction?: Redaction
  journalBytes?: number
  records?: RecordStore
  /** The sender of callbacks and webhooks; without one, none is sent. */
  deliveries?: Deliverer
  /** Rule counts shared by the replicas on a store (`--store`). */
  sharedCounts?: SharedCounts
}

export function createRuntimeState(
  scenarios: ReadonlyMap<string, Scenario>,
  startScenario: string,
  journalSize: number,
  { previous, redaction, journalBytes, records, deliveries, sharedCounts }: RuntimeStateParts = {},
): RuntimeState {
  const start = scenarios.get(startScenario)
  if (!start) throw startupErrors.scenarioUnknown(startScenario, [...scenarios.keys()])
  let active = (previous && scenarios.get(previous.activeScenario().name)) ?? start
  const bySession = new Map<string, Scenario>()
  for (const [session, scenario] of previous?.sessions() ?? []) {
    const carried = scenarios.get(scenario.name)
    if (carried) bySession.set(session, carried)
  }
  const journal = previous?.journal ?? createJournal(journalSize, redaction, journalBytes)
  const coverage = previous?.coverage ?? createCoverage()
  // Callbacks and webhooks count for coverage as they settle (the same counts across a reload).
  if (deliveries) deliveries.onSettled = (record) => coverage.countDelivery(record)
  const counters = new RuleCounters()
  const stubs = new StubStore(counters)
  const webhookTargets = new WebhookTargets()

  const findScenario = (name: string) => scenarios.get(name) ?? throwUnknown(name)
  const throwUnknown = (name: string): never => {
    throw errors.unknownScenario(400, name, [...scenarios.keys()])
  }

  return {
    listScenarios: () => [...scenarios.values()],
    activeScenario: (session) => (session === undefined ? active : (bySession.get(session) ?? active)),
    findScenario,
    useScenario(name, session) {
      const scenario = findScenario(name)
      if (session !== undefined && utf8ByteLength(session) > MAX_SESSION_BYTES) {
        throw errors.adminSessionTooLong(MAX_SESSION_BYTES, utf8ByteLength(session))
      }
      if (session === undefined) return void (active = scenario)
      bySession.delete(session)
      bySession.set(session, scenario)
      if (bySession.size > MAX_SESSIONS) bySession.delete(bySession.keys().next().value!)
    },
    journal,
    records,
    sessions: () => bySession.entries(),
    stubs,
    counters,
    sharedCounts,
    coverage,
    deliveries,
    webhookTargets,
    reset(session) {
      stubs.clear(session)
      deliveries?.clear(session)
      webhookTargets.reset(session)
      counters.reset(session)
      if (session !== undefined) {
        bySession.delete(session)
        journal.clearRequests({ session })
      } else {
        active = start
        bySession.clear()
        journal.clearRequests()
      }
      // The in-memory store resets at once; a shared one answers when it has.
      const data = records?.reset(session)
      const counts = sharedCounts?.reset(session)
      return counts ? Promise.all([data, counts]).then(() => {}) : data
    },
  }
}
