import type { IncomingHttpHeaders, IncomingMessage } from 'node:http'
import type { Context } from 'hono'
import { parse as parseCookie } from 'hono/utils/cookie'
import { joinHeader } from '../internal/join-header.js'
import type { HeaderSource, RequestData } from '../common/request.js'

/**
 * Where a request came from, as the pipeline reads it: the fetch `Request`, and Node's request when it
 * came over a socket (`undefined` under `app.request()`). Built from Hono's context for the admin API,
 * CORS and `app.request()`, and straight from the server's fetch call for every other request (`http/app.ts`).
 */
export interface Transport {
  raw: Request
  incoming?: IncomingMessage
}

/** The transport of a request Hono routed. */
export function transportOf(c: Context): Transport {
  return { raw: c.req.raw, incoming: incomingOf(c) }
}

/**
 * The adapter from a request's transport to the plain request data the stages take.
 * @note Over a socket, headers are read from Node's parsed `incoming.headers`: building a fetch
 * `Headers` for every request cost more than the rest of the adapter (issue #4). The server joins
 * repeated headers (`joinDuplicateHeaders`), so both sources read the same.
 */
export function toRequestData(transport: Transport): RequestData {
  const { raw, incoming } = transport
  // The URL as @hono/node-server builds it, dot segments resolved: the same path whichever lane.
  const { url } = raw
  const pathStart = url.indexOf('/', url.indexOf('://') + 3)
  const queryStart = url.indexOf('?', pathStart)
  // The raw path: parameters are percent-decoded once, after matching, by their validator.
  const path = queryStart === -1 ? url.slice(pathStart) : url.slice(pathStart, queryStart)
  const rawQuery = queryStart === -1 ? '' : url.slice(queryStart + 1)
  return incoming
    ? new NodeRequestData(raw.method, incoming, path, rawQuery)
    : new FetchRequestData(raw.method, raw.headers, path, rawQuery)
}

/** Shared by both sources; methods live on the prototype, so a request allocates no closures. */
abstract class BaseRequestData implements RequestData {
  #query: URLSearchParams | undefined

  constructor(
    readonly method: string,
    readonly path: string,
    readonly rawQuery: string,
  ) {}

  abstract header(name: string): string | undefined
  abstract readonly headerSource: HeaderSource

  query(): URLSearchParams {
    return (this.#query ??= new URLSearchParams(this.rawQuery))
  }

  cookie(name: string): string | undefined {
    const cookies = this.header('cookie')
    return cookies ? parseCookie(cookies, name)[name] : undefined
  }
}

class NodeRequestData extends BaseRequestData {
  readonly headerSource: IncomingHttpHeaders

  constructor(method: string, incoming: IncomingMessage, path: string, rawQuery: string) {
    super(method, path, rawQuery)
    this.headerSource = incoming.headers
    // Handed around unbound (to templates): bound once here.
    this.header = this.header.bind(this)
  }

  header(name: string): string | undefined {
    return joinHeader(this.headerSource[name])
  }
}

class FetchRequestData extends BaseRequestData {
  constructor(
    method: string,
    readonly headerSource: Headers,
    path: string,
    rawQuery: string,
  ) {
    super(method, path, rawQuery)
    this.header = this.header.bind(this)
  }

  header(name: string): string | undefined {
    return this.headerSource.get(name) ?? undefined
  }
}

/** The Node request under @hono/node-server; `undefined` under `app.request()`. */
function incomingOf(c: Context): IncomingMessage | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming
  return incoming && typeof incoming.on === 'function' ? incoming : undefined
}
