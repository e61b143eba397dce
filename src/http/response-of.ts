import { fetchHeadersOf } from '../internal/fetch-headers.js'
import type { Reply } from '../pipeline/reply.js'

/**
 * The fetch lane's `Response` for a reply (Hono's routes, `app.request()`, MSW, Vite): the one place
 * it is made. A plain header object where it can be, the fastest for @hono/node-server to write; a
 * `Headers` where a list must stay apart (several Set-Cookie), since CORS reads the answer's headers
 * back as a Headers and would join them.
 */
export function responseOf({ status, headers, body }: Reply): Response {
  const init = headers && (hasList(headers) ? fetchHeadersOf(headers) : (headers as Record<string, string>))
  return new Response(body, { status, headers: init })
}

function hasList(headers: NonNullable<Reply['headers']>): boolean {
  for (const name in headers) if (typeof headers[name] !== 'string') return true
  return false
}
