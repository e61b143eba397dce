/** Headers as a server or a client parsed them: lower-case names, a repeated header a list (Set-Cookie). */
export type ParsedHeaders = Record<string, string | string[] | undefined>

/** The server's parsed headers, or a fetch `Headers` (under `app.request()`). */
export type HeaderSource = Headers | ParsedHeaders

/** What the pipeline stages see of a request: plain data, no framework types. */
export interface RequestData {
  method: string
  path: string
  /** Header value by lower-case name; repeated headers are joined with ", ". */
  header(name: string): string | undefined
  /** Every header, lower-case names, as the server parsed them; the journal keeps this and reads it when listed. */
  headerSource: HeaderSource
  /** The headers as the server's parser read them, `[name, value, ...]` as sent, where a server did: what the journal keeps. */
  rawHeaders?: readonly string[]
  query(): URLSearchParams
  /** The query string as sent, without `?`. */
  rawQuery: string
  cookie(name: string): string | undefined
}

/** The session a request names (`X-Mock-Session`): an empty header is none, as the admin API reads it (`sessionOf`). */
export function requestSession(request: RequestData): string | undefined {
  return request.header('x-mock-session') || undefined
}
