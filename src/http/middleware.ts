import type { IncomingHttpHeaders, IncomingMessage } from 'node:http'
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
    // The journal keeps this for up to journalSize requests: hold the headers, not the request and its socket.
    headerEntries: incoming ? entriesOf.bind(undefined, incoming.headers) : headersEntries(c.req.raw.headers),
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

function* entriesOf(headers: IncomingHttpHeaders): Iterable<[string, string]> {
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) yield [name, Array.isArray(value) ? value.join(', ') : value]
}

function headersEntries(headers: Headers): () => Iterable<[string, string]> {
  return () => headers.entries()
}
