import type { StaticBody } from '../responses/declared-responses.js'
import type { RenderedResponse } from '../responses/render-response.js'
import { utf8Bytes } from '../internal/bytes.js'
import type { Reply, ReplyHeaders } from './reply.js'

/** A static body's reply as the wire takes it, with what it was made for, to tell when it no longer fits. */
interface StaticReply {
  status: number
  headers: RenderedResponse['headers']
  contentType: string | undefined
  reply: Reply
}

/**
 * Each static body's reply, made on its first use and reused: its bytes encoded once, its header
 * object (Content-Type and Content-Length in) built once, so that an example or a fixture answered
 * again costs neither an encoding nor an object (#34 §6). Weak: a reload's bodies go with their engine.
 */
const staticReplies = new WeakMap<StaticBody, StaticReply>()

/**
 * The reply of a rendered response: a static body served as written (an example, a fixture, a rule's
 * body) as the bytes and headers made for it once; any other body with its Content-Type put in.
 */
export function replyOfRendered(rendered: RenderedResponse): Reply {
  const { status, contentType, headers, body, staticBody } = rendered
  if (staticBody !== undefined && body !== null && (body === staticBody.json || body === staticBody.bytes)) {
    const made = staticReplies.get(staticBody)
    if (made && made.status === status && made.headers === headers && made.contentType === contentType)
      return made.reply
    return makeStaticReply(rendered, staticBody, body)
  }
  return { status, headers: withContentType(headers, contentType), body }
}

function makeStaticReply(rendered: RenderedResponse, staticBody: StaticBody, body: string | Uint8Array): Reply {
  const { status, contentType, headers } = rendered
  const bytes = typeof body === 'string' ? utf8Bytes(body) : body
  const sent = { ...withContentType(headers, contentType), 'content-length': String(bytes.byteLength) }
  const reply: Reply = { status, headers: sent, body: bytes }
  staticReplies.set(staticBody, { status, headers, contentType, reply })
  return reply
}

function withContentType(
  headers: Record<string, string> | undefined,
  contentType: string | undefined,
): ReplyHeaders | undefined {
  if (!contentType) return headers
  return headers ? { ...headers, 'content-type': contentType } : { 'content-type': contentType }
}
