import type { Hono } from 'hono'
import type { Engine } from '../engine/engine.js'
import { errors } from '../errors/index.js'
import { sendWebhook } from '../pipeline/send-events.js'
import type { DeliveryFilter } from '../events/delivery.js'
import type { RuntimeState } from '../engine/runtime-state.js'
import {
  ADMIN_BODY_LIMIT,
  askedSession,
  parseJsonObject,
  readSince,
  readBoolean,
  sessionOf,
} from './read-admin-input.js'
import { EVERY_WEBHOOK } from '../events/webhook-targets.js'
import { transportOf } from '../pipeline/request-data.js'
import { readBody } from '../pipeline/read-body.js'
import { isWebUrl } from '../internal/web-url.js'

/** The filters `GET /__mock/deliveries` takes. */
const DELIVERY_FILTERS = ['name', 'kind', 'outcome', 'operation', 'conformed', 'since', 'session']
const KINDS = ['callback', 'webhook']
const OUTCOMES = ['pending', 'delivered', 'failed', 'refused', 'cancelled', 'dropped']

/**
 * `POST /__mock/webhooks` sends a webhook of the description now; `GET /__mock/deliveries` lists what
 * was sent (callbacks and webhooks), `DELETE /__mock/deliveries` empties that list (or one session's).
 */
export function addDeliveryRoutes(admin: Hono, engine: Engine, state: RuntimeState, maxBodyBytes: number): void {
  admin.post('/webhooks', async (c) => {
    const body = parseJsonObject(await readBody(transportOf(c), maxBodyBytes))
    const { name, to, session } = body
    if (typeof name !== 'string') throw errors.webhookNameMissing([...engine.webhooks.keys()])
    if (to !== undefined && !isWebUrl(to)) throw errors.webhookBadTarget(to)
    if (session !== undefined && typeof session !== 'string') throw errors.adminSessionNotString()
    const record = sendWebhook(engine, state, {
      name,
      to,
      body: body.body,
      session: sessionOf(session, askedSession(c)),
    })
    return c.json(record, 202)
  })

  // Each session's receivers: `{"/plant/webhook": "http://127.0.0.1:9001/hook", "*": "http://…"}` replaces the session's targets.
  admin.put('/webhooks/targets', async (c) => {
    const body = parseJsonObject(await readBody(transportOf(c), ADMIN_BODY_LIMIT))
    const session = askedSession(c)
    const targets = new Map<string, string>()
    for (const [name, url] of Object.entries(body)) {
      if (name !== EVERY_WEBHOOK && !engine.webhooks.has(name))
        throw errors.unknownWebhook(name, [...engine.webhooks.keys(), EVERY_WEBHOOK])
      if (!isWebUrl(url)) throw errors.webhookBadTarget(url)
      targets.set(name, url)
    }
    state.webhookTargets.set(session, targets)
    return c.json(targetsAnswer(state, session))
  })

  admin.get('/webhooks/targets', (c) => c.json(targetsAnswer(state, askedSession(c))))

  admin.get('/deliveries', (c) => {
    const query = c.req.query()
    for (const key of Object.keys(query)) {
      if (!DELIVERY_FILTERS.includes(key)) throw errors.unknownJournalFilter(key, DELIVERY_FILTERS)
    }
    if (query.kind !== undefined && !KINDS.includes(query.kind)) throw errors.badDeliveryFilter('kind', KINDS)
    if (query.outcome !== undefined && !OUTCOMES.includes(query.outcome))
      throw errors.badDeliveryFilter('outcome', OUTCOMES)
    // An empty filter is none, as the request journal reads them.
    const given = Object.fromEntries(Object.entries(query).filter(([, value]) => value !== ''))
    const filter: DeliveryFilter = { ...given, session: askedSession(c) } as DeliveryFilter
    if (given.conformed !== undefined) filter.conformed = readBoolean('conformed', given.conformed)
    if (given.since !== undefined) filter.since = readSince(given.since)
    return c.json({ deliveries: state.deliveries?.list(filter) ?? [] })
  })

  admin.delete('/deliveries', (c) => {
    state.deliveries?.clear(askedSession(c))
    return c.body(null, 204)
  })
}

function targetsAnswer(state: RuntimeState, session: string | undefined) {
  const targets = Object.fromEntries(state.webhookTargets.of(session))
  return session === undefined ? { targets } : { session, targets }
}
