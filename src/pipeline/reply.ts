import { utf8Text } from '../internal/bytes.js'

/** An answer's headers, lower-case names; a list is sent as one line each (several `Set-Cookie`). */
export type ReplyHeaders = Readonly<Record<string, string | readonly string[]>>

/**
 * An answer as the pipeline gives it, with no platform's type in it: the fetch lane (Hono,
 * `app.request()`, MSW, Vite) makes a `Response` of it in one place (`http/response-of.ts`), and the
 * mock's own server writes it to Node's response as it is (`node/write-reply.ts`), with no
 * `Response` made (#34 §6).
 */
export interface Reply {
  status: number
  headers: ReplyHeaders | undefined
  /** Text, bytes (a body serialised once, at start-up or on first use), a stream of bytes, or none. */
  body: ReplyBody
}

export type ReplyBody = string | Uint8Array | ReadableStream<Uint8Array> | null

/** The whole body as text, a stream read to its end (for what a `malformed` fault cuts in half). */
export async function replyText({ body }: Reply): Promise<string> {
  if (body === null) return ''
  if (typeof body === 'string') return body
  if (body instanceof Uint8Array) return utf8Text(body)
  return new Response(body).text()
}
