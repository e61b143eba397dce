import type { IncomingMessage } from 'node:http'
import type { Context } from 'hono'
import { getCookie } from 'hono/cookie'
import type { RequestData } from '../request.js'

/** The adapter from Hono's context to the plain request data the stages take. */
export function toRequestData(c: Context): RequestData {
  let query: URLSearchParams | undefined
  const { url } = c.req
  const pathStart = url.indexOf('/', url.indexOf('://') + 3)
  const queryStart = url.indexOf('?', pathStart)
  return {
    method: c.req.method,
    // The raw path: parameters are percent-decoded once, after matching, by their validator.
    path: queryStart === -1 ? url.slice(pathStart) : url.slice(pathStart, queryStart),
    header: (name) => c.req.header(name),
    query: () => (query ??= new URLSearchParams(queryStart === -1 ? '' : url.slice(queryStart + 1))),
    cookie: (name) => getCookie(c, name),
  }
}

/** The Node request under @hono/node-server; `undefined` under `app.request()`. */
export function incomingOf(c: Context): IncomingMessage | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming
  return incoming && typeof incoming.on === 'function' ? incoming : undefined
}
