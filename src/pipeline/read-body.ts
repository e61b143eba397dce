import { errors } from '../errors/index.js'
import type { Transport } from './request-data.js'
import { concatBytes } from '../internal/bytes.js'

const EMPTY = new Uint8Array(0)

/**
 * Whether a request says it carries a body: a `Content-Type`, a `Content-Length` other than 0, or a
 * `Transfer-Encoding`. The one place this is decided.
 */
export function announcesBody(header: (name: string) => string | undefined): boolean {
  const length = header('content-length')
  return (
    header('content-type') !== undefined ||
    (length !== undefined && length !== '0') ||
    header('transfer-encoding') !== undefined
  )
}

/**
 * Reads a request body of at most `limit` bytes, or rejects with 413. A declared `Content-Length`
 * over the limit is refused before a byte is read; a chunked body is counted as it streams and the
 * reading stops at the limit.
 * @note Over a connection the server's request is read directly (`Connection.readBody`): building a
 * web stream for every body costs more than the rest of the request. Not `async`: an async function
 * that returns the connection's promise settles its own through it, which costs every request two
 * more turns of the microtask queue and a `then` looked up on a promise (#34 §6).
 */
export function readBody({ raw: request, connection }: Transport, limit: number): Promise<Uint8Array> {
  // The server's parsed header when there is one: `request.headers` under @hono/node-server builds a
  // whole fetch Headers on first use, for this one value (#19).
  const declared = connection ? (connection.headers['content-length'] ?? null) : request!.headers.get('content-length')
  if (declared !== null && Number(declared) > limit) return Promise.reject(errors.payloadTooLarge(limit))
  if (connection) return connection.readBody(limit)
  if (!request!.body) return Promise.resolve(EMPTY)
  return readStream(request!.body, limit)
}

async function readStream(body: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array> {
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limit) {
      await reader.cancel()
      throw errors.payloadTooLarge(limit)
    }
    chunks.push(value)
  }
  return chunks.length === 1 ? chunks[0]! : concatBytes(chunks, size)
}
