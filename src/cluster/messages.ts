/**
 * The messages between the primary and its workers (`--workers N`), over node:cluster's IPC channel
 * (JSON). A worker asks with `call` and gets one `reply` of the same id; the primary asks a worker
 * with `run` and gets one `done`. Every wait on either side is bounded (`IPC_TIMEOUT_MS`).
 */

/** How long either side waits for an answer before giving up with a clear error. */
export const IPC_TIMEOUT_MS = 5000

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

/** What a worker asks of the primary. */
export type Call =
  /** One RecordStore operation on the primary's store: `[method, ...args]`, lossless JSON. */
  | { kind: 'records'; payload: string }
  /** An admin write, applied on every worker in turn; answered with the asking worker's own answer. */
  | { kind: 'write'; request: WireRequest }
  /** Answers of every other worker. */
  | { kind: 'gather'; gather: Gather }

/** What the primary asks of one worker. */
export type Run =
  | { kind: 'apply'; request: WireRequest; echo: boolean }
  | { kind: 'gather'; gather: Gather }
  /** Start answering requests: every earlier admin write has been applied. */
  | { kind: 'serve' }
  /** At shutdown, before the stop: write the coverage of every worker and check `--coverage-min`; the exit code. */
  | { kind: 'finish-coverage' }

export type ToPrimary =
  | { t: 'listening'; url: string; title: string; operations: string[] }
  | { t: 'failed'; message: string; code?: string }
  | ({ t: 'call'; id: number } & Call)
  | { t: 'done'; id: number; value?: unknown; error?: string }

export type ToWorker =
  | { t: 'reply'; id: number; value?: unknown; error?: string; status?: number }
  | ({ t: 'run'; id: number } & Run)
  | { t: 'stop' }

/** A message of ours (the channel also carries node:cluster's own). */
export function isMessage<T extends { t: string }>(message: unknown): message is T {
  return typeof message === 'object' && message !== null && typeof (message as { t?: unknown }).t === 'string'
}

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
