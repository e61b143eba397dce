import type { IncomingMessage } from 'node:http'
import type { Context } from 'hono'
import { getCookie } from 'hono/cookie'
import type { RequestData } from '../request.js'

/**
 * The adapter from Hono's context to the plain request data the stages take.
 * @note Under @hono/node-server headers are read from Node's parsed `incoming.headers`: building a
 * fetch `Headers` for every request cost more than the rest of the adapter (issue #4). The server
 * joins repeated headers (`joinDuplicateHeaders`), so both sources read the same.
 */
export function toRequestData(c: Context): RequestData {
  let query: URLSearchParams | undefined
  const { url } = c.req
  const pathStart = url.indexOf('/', url.indexOf('://') + 3)
  const queryStart = url.indexOf('?', pathStart)
  const rawQuery = queryStart === -1 ? '' : url.slice(queryStart + 1)
  const incoming = incomingOf(c)
  return {
    method: c.req.method,
    // The raw path: parameters are percent-decoded once, after matching, by their validator.
    path: queryStart === -1 ? url.slice(pathStart) : url.slice(pathStart, queryStart),
    header: incoming ? (name) => headerOf(incoming, name) : (name) => c.req.header(name),
    headerEntries: incoming ? () => entriesOf(incoming) : () => c.req.raw.headers.entries(),
    rawQuery,
    query: () => (query ??= new URLSearchParams(rawQuery)),
    cookie: (name) => getCookie(c, name),
  }
}

/** The Node request under @hono/node-server; `undefined` under `app.request()`. */
export function incomingOf(c: Context): IncomingMessage | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming
  return incoming && typeof incoming.on === 'function' ? incoming : undefined
}

function headerOf(incoming: IncomingMessage, name: string): string | undefined {
  const value = incoming.headers[name]
  return Array.isArray(value) ? value.join(', ') : value
}

function* entriesOf(incoming: IncomingMessage): Iterable<[string, string]> {
  for (const name of Object.keys(incoming.headers)) yield [name, headerOf(incoming, name)!]
}
