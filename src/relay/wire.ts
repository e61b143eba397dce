/**
 * Admin calls as they cross between processes that serve one mock: the workers of `--workers N` (over
 * node:cluster's IPC channel) and the replicas on one shared store (`--store`, over Redis). JSON: bodies base64.
 */

/** A request as it crosses the channel: an admin call relayed to every worker. */
export interface WireRequest {
  method: string
  url: string
  headers: Array<[string, string]>
  /** base64 */
  body?: string
}

/** A worker's answer to a relayed request. */
export interface WireResponse {
  status: number
  headers: Array<[string, string]>
  /** base64 */
  body: string
}

/** What the worker asking wants of the others: a journal listing or count under a filter, what a verification reads, or a relayed GET. */
export type Gather =
  | { what: 'entries'; filter: Record<string, unknown> }
  | { what: 'count'; filter: Record<string, unknown> }
  /** Its journal's entries (of the session), how many it dropped, and its stubs' hits (`POST /__mock/verify`). */
  | { what: 'verify'; session?: string }
  /** Its coverage report, every session's (`--coverage-report` and `--coverage-min` at exit). */
  | { what: 'coverage' }
  | { what: 'get'; request: WireRequest }

/** What a process asks of the others that serve the mock with it. */
export type RelayCall =
  /** An admin write, applied by every process in the same order; answered with the asking process's own answer. */
  | { kind: 'write'; request: WireRequest }
  /** Answers of every other process. */
  | { kind: 'gather'; gather: Gather }

/** What a process is asked by another: to apply an admin write (`echo`: another process received it), or to answer a gather. */
export type Relayed = { kind: 'apply'; request: WireRequest; echo: boolean } | { kind: 'gather'; gather: Gather }

export function toWireRequest(request: Request, body?: Uint8Array): WireRequest {
  const wire: WireRequest = { method: request.method, url: request.url, headers: [...request.headers] }
  if (body?.byteLength) wire.body = Buffer.from(body).toString('base64')
  return wire
}

export function fromWireRequest(wire: WireRequest): Request {
  const body = wire.body === undefined ? undefined : Buffer.from(wire.body, 'base64')
  return new Request(wire.url, { method: wire.method, headers: wire.headers, body })
}

export async function toWireResponse(response: Response): Promise<WireResponse> {
  const body = Buffer.from(await response.arrayBuffer()).toString('base64')
  return { status: response.status, headers: [...response.headers], body }
}

export function fromWireResponse(wire: WireResponse): Response {
  const body = wire.status === 204 || wire.status === 304 ? null : Buffer.from(wire.body, 'base64')
  return new Response(body, { status: wire.status, headers: wire.headers })
}
