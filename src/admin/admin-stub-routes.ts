import type { Hono } from 'hono'
import { LosslessNumber, isSafeNumber, parse as parseLossless, stringify as stringifyLossless } from 'lossless-json'
import { errors } from '../errors/index.js'
import { isPlainObject } from '../internal/plain-object.js'
import type { RuleCounters } from '../rules/rule-counters.js'
import type { RuleBook } from '../rules/rule-targets.js'
import type { Stub } from '../rules/stubs.js'
import type { RuntimeState } from '../engine/runtime-state.js'
import { askedSession } from './read-admin-input.js'
import { transportOf } from '../pipeline/request-data.js'
import { readBody } from '../pipeline/read-body.js'

/**
 * `/__mock/stubs`: runtime stubs, WireMock's mappings over the description. A stub is read and
 * checked when it is created (an unknown operation, an undeclared status, a body breaking the
 * response schema answer 400 naming it), tried before the scenario's rules, removed by reset.
 */
export function addStubRoutes(admin: Hono, state: RuntimeState, rules: RuleBook, maxBodyBytes: number): void {
  admin.post('/stubs', async (c) => {
    const bytes = await readBody(transportOf(c), maxBodyBytes)
    const stub = state.stubs.add(readStubJson(bytes), rules, bytes.byteLength)
    return jsonAnswer(describeStub(stub, state.counters), 201)
  })

  admin.get('/stubs', (c) => {
    const session = askedSession(c)
    const listed = state.stubs.list().filter((stub) => session === undefined || stub.session === session)
    return jsonAnswer({ stubs: listed.map((stub) => describeStub(stub, state.counters)) }, 200)
  })

  admin.get('/stubs/:id', (c) => jsonAnswer(describeStub(findStub(state, c.req.param('id')), state.counters), 200))

  admin.delete('/stubs/:id', (c) => {
    const stub = findStub(state, c.req.param('id'))
    state.stubs.remove(stub.id)
    return c.body(null, 204)
  })

  admin.delete('/stubs', (c) => {
    state.stubs.clear(askedSession(c))
    return c.body(null, 204)
  })
}

/** A stub's JSON, integers beyond 2^53 kept exact (a condition may compare an int64 id). */
export function readStubJson(bytes: Uint8Array): Record<string, unknown> {
  let value: unknown
  try {
    value = parseLossless(new TextDecoder().decode(bytes), undefined, (text) =>
      isSafeNumber(text) ? Number(text) : new LosslessNumber(text),
    )
  } catch {
    throw errors.adminBodyNotObject()
  }
  if (!isPlainObject(value)) throw errors.adminBodyNotObject()
  return value as Record<string, unknown>
}

function findStub(state: RuntimeState, id: string): Stub {
  const stub = /^\d{1,9}$/.test(id) ? state.stubs.get(Number(id)) : undefined
  if (!stub) throw errors.stubNotFound(id)
  return stub
}

/** A stub as listed: its definition as sent, with its id, operation, priority and hits over every session. */
export function describeStub(stub: Stub, counters: RuleCounters): Record<string, unknown> {
  const described: Record<string, unknown> = {
    ...stub.source,
    id: stub.id,
    operation: stub.operation,
    priority: stub.priority,
    hits: counters.total(stub.rule),
  }
  if (stub.forced) described.forced = true
  return described
}

function jsonAnswer(value: unknown, status: number): Response {
  return new Response(stringifyLossless(value)!, { status, headers: { 'content-type': 'application/json' } })
}
