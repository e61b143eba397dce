import type { IncomingMessage } from 'node:http'
import { errors } from '../errors/index.js'
import type { Transport } from './request-data.js'

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
 * Reads a request body of at most `limit` bytes, or throws 413. A declared `Content-Length` over
 * the limit is refused before a byte is read; a chunked body is counted as it streams and the
 * reading stops at the limit.
 * @note Under @hono/node-server the Node request is read directly: building a web stream for
 * every body costs more than the rest of the request.
 */
export async function readBody({ raw: request, incoming }: Transport, limit: number): Promise<Uint8Array> {
  // Node's parsed header when there is one: `request.headers` under @hono/node-server builds a whole
  // fetch Headers on first use, for this one value (#19).
  const declared = incoming ? (incoming.headers['content-length'] ?? null) : request.headers.get('content-length')
  if (declared !== null && Number(declared) > limit) throw errors.payloadTooLarge(limit)
  if (incoming) return readIncoming(incoming, limit)
  if (!request.body) return EMPTY
  return readStream(request.body, limit)
}

function readIncoming(incoming: IncomingMessage, limit: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        cleanup()
        // Stop reading; the server answers 413 and closes the connection.
        incoming.pause()
        reject(errors.payloadTooLarge(limit))
        return
      }
      chunks.push(chunk)
    }
    const onEnd = () => {
      cleanup()
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size))
    }
    const onError = (error: Error) => {
      cleanup()
      reject(error)
    }
    const cleanup = () => {
      incoming.off('data', onData).off('end', onEnd).off('error', onError)
    }
    incoming.on('data', onData).on('end', onEnd).on('error', onError)
  })
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
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)
}
