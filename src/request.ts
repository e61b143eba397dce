/** What the pipeline stages see of a request: plain data, no framework types. */
export interface RequestData {
  method: string
  path: string
  /** Header value by lower-case name; repeated headers are joined with ", ". */
  header(name: string): string | undefined
  /** Every header, lower-case names; read only when the journal is listed. */
  headerEntries(): Iterable<[string, string]>
  query(): URLSearchParams
  /** The query string as sent, without `?`. */
  rawQuery: string
  cookie(name: string): string | undefined
}
