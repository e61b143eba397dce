import type { IncomingHttpHeaders, IncomingMessage } from 'node:http'
import type { Context } from 'hono'
import { getCookie } from 'hono/cookie'
import { joinHeader } from '../internal/join-header.js'
import type { HeaderSource, RequestData } from '../request.js'

/**
 * The adapter from Hono's context to the plain request data the stages take.
 * @note Under @hono/node-server headers are read from Node's parsed `incoming.headers`: building a
 * fetch `Headers` for every request cost more than the rest of the adapter (issue #4). The server
 * joins repeated headers (`joinDuplicateHeaders`), so both sources read the same.
 */
export function toRequestData(c: Context): RequestData {
  const { url } = c.req
  const pathStart = url.indexOf('/', url.indexOf('://') + 3)
  const queryStart = url.indexOf('?', pathStart)
  // The raw path: parameters are percent-decoded once, after matching, by their validator.
  const path = queryStart === -1 ? url.slice(pathStart) : url.slice(pathStart, queryStart)
  const rawQuery = queryStart === -1 ? '' : url.slice(queryStart + 1)
  const incoming = incomingOf(c)
  return incoming ? new NodeRequestData(c, incoming, path, rawQuery) : new FetchRequestData(c, path, rawQuery)
}

/** Shared by both sources; methods live on the prototype, so a request allocates no closures. */
abstract class BaseRequestData implements RequestData {
  readonly method: string
  #query: URLSearchParams | undefined

  constructor(
    protected readonly c: Context,
    readonly path: string,
    readonly rawQuery: string,
  ) {
    this.method = c.req.method
  }

  abstract header(name: string): string | undefined
  abstract readonly headerSource: HeaderSource

  query(): URLSearchParams {
    return (this.#query ??= new URLSearchParams(this.rawQuery))
  }

  cookie(name: string): string | undefined {
    return getCookie(this.c, name)
  }
}

class NodeRequestData extends BaseRequestData {
  readonly headerSource: IncomingHttpHeaders

  constructor(c: Context, incoming: IncomingMessage, path: string, rawQuery: string) {
    super(c, path, rawQuery)
    this.headerSource = incoming.headers
    // Handed around unbound (to templates): bound once here.
    this.header = this.header.bind(this)
  }

  header(name: string): string | undefined {
    return joinHeader(this.headerSource[name])
  }
}

class FetchRequestData extends BaseRequestData {
  readonly headerSource: Headers

  constructor(c: Context, path: string, rawQuery: string) {
    super(c, path, rawQuery)
    this.headerSource = c.req.raw.headers
    this.header = this.header.bind(this)
  }

  header(name: string): string | undefined {
    return this.headerSource.get(name) ?? undefined
  }
}

/** The Node request under @hono/node-server; `undefined` under `app.request()`. */
export function incomingOf(c: Context): IncomingMessage | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming
  return incoming && typeof incoming.on === 'function' ? incoming : undefined
}
