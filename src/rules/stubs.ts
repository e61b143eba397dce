import { errors } from '../errors/index.js'
import { RuleProblem } from '../errors/rule.js'
import { RULE_KEYS, type RuleTarget, readRule } from './read-rule.js'
import type { RuleBook } from './rule-targets.js'
import type { AnswerRule } from './rule.js'
import type { RuleCounters } from './rule-counters.js'
import { isOperationNamed } from '../internal/operation-name.js'
import { utf8ByteLength } from '../internal/bytes.js'

/** Stubs held at most, and the bytes of their definitions: stubs are a test's few, not a data set. */
export const MAX_STUBS = 1000
export const MAX_STUB_BYTES = 64 * 1024 * 1024
/** Longest session name a stub may be for, in UTF-8 bytes, as for scenarios. */
const MAX_SESSION_BYTES = 256
/** WireMock's default: 1 is the highest priority. */
const DEFAULT_PRIORITY = 5

const STUB_KEYS = [...RULE_KEYS, 'operation', 'session', 'priority', 'force']

/** A runtime stub (`POST /__mock/stubs`, `mock.stub()`): a rule of one operation, tried before the scenario's. */
export interface Stub {
  id: number
  /** The operation's id, as listed. */
  operation: string
  index: number
  session?: string
  priority: number
  rule: AnswerRule
  /** The definition as sent, for the listing and for a reload to read again. */
  source: Record<string, unknown>
  /** Its inline body or headers break the declared response, accepted with `"force": true`. */
  forced: boolean
  bytes: number
}

/**
 * A stub's definition read against the description, as a scenario's rule is, plus `operation`
 * (operationId or `METHOD /path`), `session`, `priority` and `force`. A mistake is a 400 naming it.
 */
export function readStub(source: Record<string, unknown>, book: RuleBook, id: number, bytes: number): Stub {
  const target = findTarget(source.operation, book.targets)
  const { session, priority = DEFAULT_PRIORITY, force = false } = source
  if (session !== undefined && (typeof session !== 'string' || session === ''))
    throw errors.badStub('"session" is a non-empty string.')
  if (typeof session === 'string' && utf8ByteLength(session) > MAX_SESSION_BYTES)
    throw errors.adminSessionTooLong(MAX_SESSION_BYTES, utf8ByteLength(session))
  if (!Number.isSafeInteger(priority)) throw errors.badStub('"priority" is a whole number; 1 is the highest.')
  if (typeof force !== 'boolean') throw errors.badStub('"force" is true or false.')
  let rule: AnswerRule
  try {
    rule = readRule(source, target, { ...book.reading, force }, `stub ${id}`, STUB_KEYS)
  } catch (error) {
    if (error instanceof RuleProblem) throw errors.badStub(`${target.id}: ${error.message}`)
    throw error
  }
  rule.stub = id
  if (session !== undefined) rule.session = session as string
  const forced = [rule.answer, ...(rule.sequence ?? [])].some((a) => a.violations !== undefined)
  return {
    id,
    operation: target.id,
    index: target.index,
    session: session as string | undefined,
    priority: priority as number,
    rule,
    source,
    forced,
    bytes,
  }
}

function findTarget(operation: unknown, targets: readonly RuleTarget[]): RuleTarget {
  if (typeof operation !== 'string')
    throw errors.badStub('"operation" names the operation: its operationId or "METHOD /path".')
  const found = targets.find(
    // The method may be written in any case: `post /plants` is `POST /plants`.
    (t) =>
      isOperationNamed(
        t,
        operation.replace(/^(\S+)/, (m) => m.toUpperCase()),
      ) || isOperationNamed(t, operation),
  )
  if (found) return found
  throw errors.badStub(
    `"${operation}" names no operation; use an operationId or "METHOD /path" (known: ${targets
      .slice(0, 20)
      .map((t) => t.id)
      .join(', ')}${targets.length > 20 ? ', …' : ''}).`,
  )
}

/** Each operation's stubs in the order they are tried, and whether one of them answers past violations. */
export interface OperationStubs {
  rules: AnswerRule[]
  skipping: boolean
}

const NONE: OperationStubs = { rules: [], skipping: false }

/** The stubs of a running mock, by id and by operation; emptied by reset. A removed stub's counts go with it. */
export class StubStore {
  constructor(private readonly counters: RuleCounters) {}

  private readonly byId = new Map<number, Stub>()
  private byOperation: OperationStubs[] = []
  private nextId = 1
  private bytes = 0

  /** The stubs of an operation, in the order they are tried: priority, then the newest first. */
  of(index: number): OperationStubs {
    return this.byOperation[index] ?? NONE
  }

  /** Reads and adds a stub; throws a 400 naming what is wrong, or a 409 when the store is full. */
  add(source: Record<string, unknown>, book: RuleBook, bytes: number): Stub {
    if (this.byId.size >= MAX_STUBS || this.bytes + bytes > MAX_STUB_BYTES)
      throw errors.tooManyStubs(MAX_STUBS, MAX_STUB_BYTES)
    const stub = readStub(source, book, this.nextId, bytes)
    this.nextId++
    this.put(stub)
    return stub
  }

  /** A stub read again elsewhere (a reload of the description), keeping its id. */
  put(stub: Stub): void {
    this.byId.set(stub.id, stub)
    this.bytes += stub.bytes
    this.nextId = Math.max(this.nextId, stub.id + 1)
    this.index(stub.index)
  }

  get(id: number): Stub | undefined {
    return this.byId.get(id)
  }

  list(): Stub[] {
    return [...this.byId.values()]
  }

  remove(id: number): Stub | undefined {
    const stub = this.byId.get(id)
    if (!stub) return undefined
    this.byId.delete(id)
    this.bytes -= stub.bytes
    this.counters.forget(stub.rule)
    this.index(stub.index)
    return stub
  }

  /** Every stub, or those of one session; removed stubs are returned. */
  clear(session?: string): Stub[] {
    const removed = this.list().filter((stub) => session === undefined || stub.session === session)
    for (const stub of removed) this.remove(stub.id)
    return removed
  }

  private index(operation: number): void {
    const stubs = this.list()
      .filter((stub) => stub.index === operation)
      .sort((a, b) => a.priority - b.priority || b.id - a.id)
    this.byOperation[operation] = stubs.length
      ? { rules: stubs.map((stub) => stub.rule), skipping: stubs.some((stub) => stub.rule.skipsValidation) }
      : NONE
  }
}
