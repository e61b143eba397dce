/**
 * What the request that triggered a callback or a bound webhook gives them: its path parameters and
 * body, and the answer it got, as runtime expressions and placeholders read them.
 */
import type { HeaderSource } from '../common/request.js'
import { joinHeader } from '../internal/join-header.js'
import type { Exchange } from './exchange.js'
import { templateRequestOf } from '../responses/template-request.js'
import type { TemplateRequest } from '../responses/templates.js'
import type { ExpressionSource } from '../events/runtime-expression.js'

/** What a request whose answer sends events carries to them: its path parameters and parsed body. */
export interface EventInput {
  params: Record<string, string>
  value: unknown
}

/** The exchange that triggered events, read once for all of them: as expressions read it, and as placeholders do. */
export interface Trigger {
  source: ExpressionSource
  request: TemplateRequest
}

export function triggerOf(exchange: Exchange, input: EventInput): Trigger {
  const source = expressionSourceOf(exchange, input)
  const request = templateRequestOf(exchange.request, input.params, input.value)
  request.response = source.response
  return { source, request }
}

/** The exchange as a callback's expressions read it. */
function expressionSourceOf(exchange: Exchange, { params, value }: EventInput): ExpressionSource {
  const { request, answer } = exchange
  const host = request.header('host') ?? 'localhost'
  const headers = answer!.headers
  let responseBody: unknown
  return {
    url: `http://${host}${request.path}${request.rawQuery ? `?${request.rawQuery}` : ''}`,
    method: request.method,
    request: {
      path: Object.fromEntries(Object.entries(params).map(([name, text]) => [name, decodeSafely(text)])),
      query: request.query(),
      header: (name) => request.header(name),
      body: value,
    },
    response: {
      status: answer!.status,
      header: (name) =>
        name === 'content-type' && answer!.contentType !== undefined ? answer!.contentType : headerOf(headers, name),
      get body() {
        return (responseBody ??= parseAnswer(answer!.body))
      },
    },
  }
}

function headerOf(headers: HeaderSource | undefined, name: string): string | undefined {
  if (!headers) return undefined
  if (headers instanceof Headers) return headers.get(name) ?? undefined
  const value = (headers as Record<string, string | string[] | undefined>)[name]
  return value === undefined ? undefined : joinHeader(value)
}

function parseAnswer(body: string | Uint8Array | null): unknown {
  if (typeof body !== 'string') return undefined
  try {
    return JSON.parse(body)
  } catch {
    return undefined
  }
}

function decodeSafely(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}
