import type { OutgoingHttpHeaders, ServerResponse } from 'node:http'
import { Readable, pipeline } from 'node:stream'
import type { Reply } from '../pipeline/reply.js'

/**
 * Writes a reply to Node's response, as it is: status and headers in one `writeHead`, a body of text
 * or bytes in one `end` with its Content-Length (a static body's is in its headers already), a stream
 * piped as it comes, headers first (#34 §6). A HEAD gets the headers alone: Node leaves the body out,
 * and a stream is cancelled unread. Headers Node refuses (a character it cannot send) get a plain 500.
 */
export function writeReply(outgoing: ServerResponse, { status, headers, body }: Reply): void {
  try {
    if (body === null) {
      outgoing.writeHead(status, headers as OutgoingHttpHeaders | undefined).end()
    } else if (typeof body === 'string' || body instanceof Uint8Array) {
      outgoing.writeHead(status, withLength(headers, body)).end(body)
    } else {
      outgoing.writeHead(status, headers as OutgoingHttpHeaders | undefined)
      writeStream(outgoing, body)
    }
  } catch (error) {
    if (!outgoing.headersSent && body instanceof ReadableStream) void body.cancel()
    writeBroken(outgoing, error)
  }
}

/** What a reply that could not be written is answered instead: the reason, in a plain 500, as @hono/node-server does. */
export function writeBroken(outgoing: ServerResponse, error: unknown): void {
  if (outgoing.headersSent) return void outgoing.destroy()
  outgoing.writeHead(500, { 'content-type': 'text/plain; charset=UTF-8' }).end(`Error: ${(error as Error)?.message}`)
}

function withLength(headers: Reply['headers'], body: string | Uint8Array): OutgoingHttpHeaders {
  if (headers?.['content-length'] !== undefined) return headers as OutgoingHttpHeaders
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength
  return { ...(headers as OutgoingHttpHeaders | undefined), 'content-length': length }
}

/**
 * A streamed body, pulled only as fast as the client reads it; the client leaving cancels it (its
 * `cancel` tells the journal). The head goes at once: a stream's first item may come later.
 */
function writeStream(outgoing: ServerResponse, body: ReadableStream<Uint8Array>): void {
  if (outgoing.req.method === 'HEAD') {
    void body.cancel()
    return void outgoing.end()
  }
  outgoing.flushHeaders()
  // An error is the client gone (the stream was cancelled) or the stream failing: Node's response is destroyed either way.
  pipeline(Readable.fromWeb(body as import('node:stream/web').ReadableStream<Uint8Array>), outgoing, () => {})
}
