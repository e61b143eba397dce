/** What the pipeline stages see of a request: plain data, no framework types. */
export interface RequestData {
  method: string
  path: string
  /** Header value by lower-case name; repeated headers are joined with ", ". */
  header(name: string): string | undefined
  query(): URLSearchParams
  cookie(name: string): string | undefined
}
