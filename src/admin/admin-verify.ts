import type { Hono } from 'hono'
import type { Engine } from '../engine/engine.js'
import type { RuntimeState } from '../engine/runtime-state.js'
import { errors } from '../errors/index.js'
import { VerificationError } from '../errors/verification-error.js'
import type { JournalEntry } from '../journal/journal-entry.js'
import { matchOperation } from '../routing/match-operation.js'
import { readCheck, readChecks } from '../verify/read-checks.js'
import type { Check, VerifyInput } from '../verify/verify-check.js'
import { type VerifyFailure, type VerifyOutcome, verifyChecks } from '../verify/verify-checks.js'
import { verificationMessage } from '../verify/verification-message.js'
import { readBody } from '../pipeline/read-body.js'
import { transportOf } from '../pipeline/request-data.js'
import { readStubJson } from './admin-stub-routes.js'
import { askedSession, sessionOf } from './read-admin-input.js'

/** What one worker's journal and stubs give a verification (of one session, or of all). */
export function verifyInputOf(state: RuntimeState, session: string | undefined): VerifyInput {
  const stubs = state.stubs
    .list()
    .filter((stub) => session === undefined || stub.session === undefined || stub.session === session)
    .map(({ id, operation, rule, session: own }) => ({
      id,
      operation,
      ...(own === undefined ? {} : { session: own }),
      hits: session === undefined ? state.counters.total(rule) : state.counters.count(rule, session),
    }))
  return {
    entries: state.journal.listRequests(session === undefined ? {} : { session }),
    dropped: state.journal.dropped,
    stubs,
  }
}

/** Runs the checks; a request check that reads path parameters finds them by matching the journaled path again. */
export function runVerification(
  engine: Engine,
  checks: readonly Check[],
  input: VerifyInput,
  session: string | undefined,
): VerifyOutcome {
  return verifyChecks(checks, input, (entry) => paramsOf(engine, entry), session)
}

function paramsOf(engine: Engine, entry: JournalEntry): Record<string, string> {
  try {
    return matchOperation(engine.router, entry.method, entry.path).params
  } catch {
    return {}
  }
}

/** The handle's checks: one check, of the session it names, thrown as an `AssertionError` when it fails. */
export function checkVerification(
  engine: Engine,
  state: RuntimeState,
  written: Record<string, unknown>,
  where: string,
): void {
  if (written.session !== undefined && typeof written.session !== 'string') throw errors.adminSessionNotString()
  const check = readCheck(written, engine.rules, where)
  const session = sessionOf(written.session as string | undefined)
  const outcome = runVerification(engine, [check], verifyInputOf(state, session), session)
  if (!outcome.ok)
    throw new VerificationError<VerifyFailure>(verificationMessage(outcome), outcome.failures, outcome.dropped)
}

/** `POST /__mock/verify`'s body read: its checks and the session they look at (the body's, else `?session=` or `X-Mock-Session`). */
export function readVerification(
  bytes: Uint8Array,
  engine: Engine,
  asked: string | undefined,
): { checks: Check[]; session: string | undefined } {
  const body = readStubJson(bytes)
  const unknown = Object.keys(body).filter((key) => key !== 'checks' && key !== 'session')
  if (unknown.length) throw errors.badVerifyCheck('the body', `takes "checks" and "session", not ${unknown.join(', ')}`)
  if (body.session !== undefined && typeof body.session !== 'string') throw errors.adminSessionNotString()
  return {
    checks: readChecks(body.checks, engine.rules),
    session: sessionOf(body.session as string | undefined, asked),
  }
}

/** 200 `{ ok: true }`, or 409 with every failure, as data and as the message a test runner would print. */
export function verificationAnswer(outcome: VerifyOutcome): Response {
  const { ok, checked, dropped, failures } = outcome
  if (ok) return Response.json({ ok, checked, dropped })
  return Response.json({ ok, checked, dropped, failures, message: verificationMessage(outcome) }, { status: 409 })
}

/** `POST /__mock/verify`: the checks of `mock.verify()` and the others, for a test in any language. */
export function addVerifyRoute(admin: Hono, engine: Engine, state: RuntimeState, maxBodyBytes: number): void {
  admin.post('/verify', async (c) => {
    const bytes = await readBody(transportOf(c), maxBodyBytes)
    const { checks, session } = readVerification(bytes, engine, askedSession(c))
    return verificationAnswer(runVerification(engine, checks, verifyInputOf(state, session), session))
  })
}
