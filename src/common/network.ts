import type { ParsedHeaders } from './request.js'

/**
 * The network beyond the request the mock answers, and what the core cannot read portably: the
 * upstream of proxy mode, and multipart bodies. `src/node/node-network.ts` gives Node's.
 */
export interface Network {
  /** A client of the upstream of proxy mode (`--proxy`), its connections kept open and reused across requests. */
  upstreamClient(settings: UpstreamSettings): Promise<UpstreamClient>
  /**
   * Splits a multipart body into its parts, at most `maxParts`: a `multipart/form-data` one into its
   * named fields and files, any other (`multipart/mixed`) into its parts in order. A malformed body or
   * one with more parts comes back as the reason, never thrown.
   */
  readMultipart(bytes: Uint8Array, contentType: string, maxParts: number): Promise<Part[] | { problem: string }>
}

/** Where and how long: what the client of the upstream is made with (`Upstream`). */
export interface UpstreamSettings {
  url: URL
  /** Bounds the wait for an answer's head, and every pause in its body. */
  timeoutMs: number
  /** Bounds the opening of a new connection. */
  connectTimeoutMs: number
  /** Accept a certificate that does not verify (`--proxy-insecure`). */
  insecure: boolean
}

/** Connections to the upstream, reused across requests. Its failures are the mock's errors: 502, or 504 for a wait that ran out. */
export interface UpstreamClient {
  /** One request, resolved with the answer's head; redirects are answers, not followed. */
  send(call: UpstreamCall): Promise<UpstreamReply>
  /** Closes every connection: the server is closing. */
  destroy(): Promise<void>
}

export interface UpstreamCall {
  method: string
  /** Path and query, under the upstream's own path. */
  path: string
  headers: Record<string, string>
  body: Uint8Array | undefined
}

/**
 * Largest upstream answer read whole to be checked (a larger one is refused, 502, rather than held), and
 * the largest item of a streamed answer held to be checked (#31 §2).
 */
export const MAX_UPSTREAM_BODY = 16 * 1024 * 1024

/** The upstream's answer: its head, and its body as it comes, to be read whole, passed on, read chunk by chunk or let go once. */
export interface UpstreamReply {
  status: number
  /** Lower-case names; a repeated header is a list (Set-Cookie). */
  headers: ParsedHeaders
  /** The body read whole, to be checked: one too large to hold, or cut short, is a 502; a pause past the timeout a 504. */
  readBody(): Promise<Uint8Array>
  /** The body as it comes, passed on unread. */
  streamBody(): ReadableStream<Uint8Array>
  /**
   * The body's next chunk as it comes, `undefined` at its end: for a stream read item by item. A body
   * cut short rejects with a 502, a pause longer than the timeout with a 504; `destroyBody` stops it.
   */
  readChunk(): Promise<Uint8Array | undefined>
  /** The body drained unread: its connection goes back to the pool. */
  discardBody(): void
  /** The body cut off: the answer is refused. */
  destroyBody(): void
}

/** One part of a multipart body, as sent. */
export interface Part {
  /** Its field name; empty for a part of a multipart type other than a form (`multipart/mixed`), known by its position. */
  name: string
  /** Its Content-Type essence, lower-cased; `text/plain` when the part declares none. */
  mimeType: string
  /** A field's text, decoded with its charset (UTF-8 unless told otherwise). */
  text?: string
  /** A file's bytes: whether they are text, JSON or binary is for the schema to say. */
  bytes?: Uint8Array
}
