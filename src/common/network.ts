/**
 * The network beyond the request the mock answers, and what the core cannot read portably: the
 * upstream of proxy mode, and multipart bodies. `src/node/node-network.ts` gives Node's.
 */
export interface Network {
  /** Splits a `multipart/form-data` body into its parts, at most `maxParts`; a malformed body or one with more parts comes back as the reason, never thrown. */
  readMultipart(bytes: Uint8Array, contentType: string, maxParts: number): Promise<Part[] | { problem: string }>
}

/** One part of a multipart body, as sent. */
export interface Part {
  name: string
  /** Its Content-Type essence, lower-cased; `text/plain` when the part declares none. */
  mimeType: string
  /** A field's text, decoded with its charset (UTF-8 unless told otherwise). */
  text?: string
  /** A file's bytes: whether they are text, JSON or binary is for the schema to say. */
  bytes?: Uint8Array
}
