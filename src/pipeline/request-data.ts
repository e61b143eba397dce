import type { Context } from 'hono'
import { parse as parseCookie } from 'hono/utils/cookie'
import { joinHeader } from '../internal/join-header.js'
import type { HeaderSource, ParsedHeaders, RequestData } from '../common/request.js'

/**
 * Where a request came from, as the pipeline reads it: the fetch `Request`, and the connection it came
 * over when a server took it (`undefined` under `app.request()`). On the server's own lane no `Request`
 * is made at all (#34 §6): the connection is all there is. Hono's routes read theirs back from their
 * context (`transportOf`).
 */
export type Transport = { raw: Request; connection?: Connection } | { raw?: undefined; connection: Connection }

/**
 * What the server gives of a request beyond its fetch `Request`, read more cheaply than through it:
 * the fetch `Headers` and web stream built over Node's request cost more than the rest of a request
 * (#4, #19). Node's is `src/node/node-connection.ts`.
 */
export interface Connection {
  /** The request's method, upper-case, as the server parsed it. */
  readonly method: string
  /**
   * The request target as sent (`/plants?x=1`): only the server's own lane reads it, and takes only a
   * target with nothing to resolve or encode (`isPlainTarget`); the fetch lane reads the `Request`'s URL.
   */
  readonly target: string
  /** The request's headers as the server parsed them, repeated ones joined (`a, b`) as fetch's Headers does. */
  readonly headers: ParsedHeaders
  /** The same as the parser read them, `[name, value, ...]`. */
  readonly rawHeaders: readonly string[]
  /** The body, at most `limit` bytes: past it the reading stops, and it rejects with 413. */
  readBody(limit: number): Promise<Uint8Array>
  /** Whether the connection is closed already. */
  readonly closed: boolean
  /** Calls `listener` once, when the connection closes. */
  onceClosed(listener: () => void): void
  /** Takes back a listener given to `onceClosed`. */
  offClosed(listener: () => void): void
  /** Resets the connection: the client sees ECONNRESET. */
  reset(): void
  /** Closes the connection, with no byte more. */
  close(): void
}

/** What the server passes Hono with a request (its env): the transport (`MockApps.serve`), or nothing under `app.request()`. */
export interface ServerBindings {
  connection?: Connection
}

/** The transport of a request Hono routed. */
export function transportOf(c: Context): Transport {
  return { raw: c.req.raw, connection: (c.env as ServerBindings | undefined)?.connection }
}

/**
 * The adapter from a request's transport to the plain request data the stages take.
 * @note Over a connection, headers are read from the server's parsed `connection.headers`: building a
 * fetch `Headers` for every request cost more than the rest of the adapter (issue #4). The server joins
 * repeated headers, so both sources read the same.
 */
export function toRequestData(transport: Transport): RequestData {
  const { raw, connection } = transport
  // The URL as @hono/node-server builds it, dot segments resolved: the same path whichever lane. The
  // server's own lane takes only targets that URL would leave as they are (`isPlainTarget`).
  const url = raw ? raw.url : connection.target
  const pathStart = raw ? url.indexOf('/', url.indexOf('://') + 3) : 0
  const queryStart = url.indexOf('?', pathStart)
  // The raw path: parameters are percent-decoded once, after matching, by their validator.
  const path = queryStart === -1 ? url.slice(pathStart) : url.slice(pathStart, queryStart)
  const rawQuery = queryStart === -1 ? '' : url.slice(queryStart + 1)
  if (!connection) return new FetchRequestData(raw!.method, raw!.headers, path, rawQuery)
  return new ParsedRequestData(
    raw ? raw.method : connection.method,
    connection.headers,
    connection.rawHeaders,
    path,
    rawQuery,
  )
}

/**
 * A request target the fetch lane's URL (@hono/node-server's `buildUrl`) would keep as it is: a path
 * of the characters it leaves alone, with no `%` (Hono decodes those first) and no dot segment. Any
 * other target goes through the fetch lane, so that both lanes see the same path.
 */
export function isPlainTarget(target: string): boolean {
  return PLAIN_TARGET.test(target) && !DOT_SEGMENT.test(target)
}

const PLAIN_TARGET = /^\/[!#$&-;=?-[\]_a-z~]*$/
const DOT_SEGMENT = /\/\.\.?(?:[/?#]|$)/

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

/** Over a connection: the headers as the server parsed them. */
class ParsedRequestData extends BaseRequestData {
  constructor(
    method: string,
    readonly headerSource: ParsedHeaders,
    readonly rawHeaders: readonly string[],
    path: string,
    rawQuery: string,
  ) {
    super(method, path, rawQuery)
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
