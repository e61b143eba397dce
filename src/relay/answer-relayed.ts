import type { LiveMock } from '../admin/mock-handle.js'
import { verifyInputOf } from '../admin/admin-verify.js'
import { coverageOf } from '../admin/admin-coverage.js'
import { type FetchHandler, applyingEcho } from './relay-link.js'
import { type Relayed, fromWireRequest, toWireResponse } from './wire.js'

/**
 * What this process answers another that serves the mock with it: an admin write applied through its
 * own handler (as an echo when another process received it), or its part of a gather (its journal's
 * entries or count, what a verification reads, its coverage, a relayed GET).
 */
export async function answerRelayed(relayed: Relayed, handle: FetchHandler, live: LiveMock): Promise<unknown> {
  if (relayed.kind === 'apply')
    return applyingEcho.run(relayed.echo, async () => toWireResponse(await handle(fromWireRequest(relayed.request))))
  const { gather } = relayed
  const { journal } = live.state
  if (gather.what === 'entries') return journal.listRequests(gather.filter)
  if (gather.what === 'count') return journal.countRequests(gather.filter)
  if (gather.what === 'verify') return verifyInputOf(live.state, gather.session)
  if (gather.what === 'coverage') return coverageOf(live.engine, live.state)
  return toWireResponse(await handle(fromWireRequest(gather.request)))
}
