import { isLosslessNumber } from 'lossless-json'
import { isPlainObject } from '../internal/plain-object.js'
import { pointerTokens } from '../openapi/resolve-ref.js'

/** What a callback's expressions read: the request the mock answered, and its answer. */
export interface ExpressionSource {
  /** The request's full URL as the mock received it (scheme, host, path, query). */
  url: string
  method: string
  request: {
    /** Path parameters, percent-decoded. */
    path: Record<string, string>
    query: URLSearchParams
    /** Called with the name lower-cased. */
    header(name: string): string | undefined
    /** The parsed JSON body (or undefined). */
    body: unknown
  }
  response: {
    status: number
    /** Called with the name lower-cased. */
    header(name: string): string | undefined
    body: unknown
  }
}

/**
 * A callback key compiled once at start-up: literal text and the expressions between it.
 * Success allocates nothing but the result string; the rare failure asks `missingIn` what was missing.
 */
export interface RuntimeExpression {
  /** As written in the description. */
  readonly text: string
  /**
   * The text with every expression replaced by its value, or `undefined` when one resolves to nothing
   * (absent, null, an object or an array: a URL must be text). The caller then skips the callback.
   */
  evaluate(source: ExpressionSource): string | undefined
  /**
   * The first expression, as written (`$request.body#/callbackUrl`), that resolves to nothing for this
   * source, or `undefined` when all resolve: for the log line after `evaluate` returned `undefined`.
   */
  missingIn(source: ExpressionSource): string | undefined
}

/** A runtime expression the description got wrong; thrown at start-up, naming the text and the fault. */
export class RuntimeExpressionError extends Error {
  override name = 'RuntimeExpressionError'
  constructor(
    /** The whole text as written. */
    readonly text: string,
    /** What is wrong, for the message. */
    readonly reason: string,
  ) {
    super(`runtime expression \`${text}\`: ${reason}`)
  }
}

/** One expression: its text for the log, and how to read its value as text (`undefined` when there is none). */
interface Reader {
  text: string
  read(source: ExpressionSource): string | undefined
}

/** A pointer token read ahead: the key, and the array index it names (-1 when it names none). */
interface PointerStep {
  key: string
  index: number
}

const ARRAY_INDEX = /^(?:0|[1-9][0-9]*)$/
const HEADER_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const BAD_ESCAPE = /~(?![01])/

/**
 * Compiles a callback key: one bare expression (`$request.body#/callbackUrl`), or text with
 * expressions in braces (`{$request.body#/callbackUrl}/data`). Throws `RuntimeExpressionError`.
 */
export function compileRuntimeExpression(text: string): RuntimeExpression {
  const literals: string[] = []
  const readers: Reader[] = []
  if (text.startsWith('$')) {
    if (text.includes('{') || text.includes('}')) fail(text, 'a bare expression holds no braces; wrap each in {…}')
    literals.push('', '')
    readers.push(compileReader(text, text))
  } else {
    splitEmbedded(text, literals, readers)
  }
  return {
    text,
    evaluate: (source) => evaluateParts(literals, readers, source),
    missingIn: (source) => readers.find((reader) => reader.read(source) === undefined)?.text,
  }
}

/** Fills `literals` (one more than readers) and `readers` from `text {$expr} text …`. */
function splitEmbedded(text: string, literals: string[], readers: Reader[]): void {
  let from = 0
  for (let open = text.indexOf('{'); open !== -1; open = text.indexOf('{', from)) {
    const close = text.indexOf('}', open + 1)
    if (close === -1) fail(text, `the \`{\` at ${open} is never closed`)
    const inner = text.slice(open + 1, close)
    if (inner.includes('{')) fail(text, `nested braces in \`{${inner}}\``)
    if (!inner.startsWith('$')) fail(text, `\`{${inner}}\` is not an expression: one starts with \`$\``)
    literals.push(text.slice(from, open))
    readers.push(compileReader(inner, text))
    from = close + 1
  }
  literals.push(text.slice(from))
}

function evaluateParts(literals: string[], readers: Reader[], source: ExpressionSource): string | undefined {
  let result = literals[0]!
  for (let i = 0; i < readers.length; i++) {
    const value = readers[i]!.read(source)
    if (value === undefined) return undefined
    result += value + literals[i + 1]!
  }
  return result
}

/** The reader for one expression (`$request.query.cb`); `text` is the whole key, for errors. */
function compileReader(expression: string, text: string): Reader {
  const reader = (read: Reader['read']): Reader => ({ text: expression, read })
  if (expression === '$url') return reader((source) => source.url)
  if (expression === '$method') return reader((source) => source.method)
  if (expression === '$statusCode') return reader((source) => String(source.response.status))
  const side = expression.startsWith('$request.') ? 'request' : expression.startsWith('$response.') ? 'response' : ''
  if (side === '') {
    fail(
      text,
      `\`${expression}\` reads an unknown source; expected $url, $method, $statusCode, $request.… or $response.…`,
    )
  }
  return reader(compileSourceRead(side, expression.slice(side.length + 2), expression, text))
}

/** How to read `rest` (`header.x-id`, `body#/id`, …) from the request or the response. */
function compileSourceRead(
  side: 'request' | 'response',
  rest: string,
  expression: string,
  text: string,
): Reader['read'] {
  if (rest === 'body' || rest.startsWith('body#')) {
    const steps = compilePointer(rest.slice(5), expression, text)
    return (source) => textOf(valueAtSteps(source[side].body, steps))
  }
  const dot = rest.indexOf('.')
  const part = dot === -1 ? rest : rest.slice(0, dot)
  const name = dot === -1 ? '' : rest.slice(dot + 1)
  const parts = side === 'request' ? ['header', 'query', 'path'] : ['header']
  if (!parts.includes(part)) {
    const expected = parts.map((known) => `${known}.NAME`).join(', ')
    fail(text, `\`${expression}\` reads \`${part}\` of the ${side}; expected ${expected}, body or body#/pointer`)
  }
  if (name === '') fail(text, `\`${expression}\` names no ${part}`)
  if (part === 'query') return (source) => source.request.query.get(name) ?? undefined
  if (part === 'path') {
    return (source) => (Object.hasOwn(source.request.path, name) ? source.request.path[name] : undefined)
  }
  if (!HEADER_TOKEN.test(name)) fail(text, `\`${name}\` in \`${expression}\` is not a header name`)
  const lower = name.toLowerCase()
  return (source) => source[side].header(lower)
}

/** The steps of the JSON pointer after `#` (RFC 6901); `''` is the whole body. */
function compilePointer(pointer: string, expression: string, text: string): PointerStep[] {
  if (pointer !== '' && !pointer.startsWith('/')) {
    fail(text, `the pointer in \`${expression}\` must start with \`/\``)
  }
  if (BAD_ESCAPE.test(pointer)) fail(text, `the pointer in \`${expression}\` has a \`~\` not followed by 0 or 1`)
  return pointerTokens(pointer).map((key) => ({ key, index: ARRAY_INDEX.test(key) ? Number(key) : -1 }))
}

/** Own properties and array indexes only: `#/constructor` or `#/list/length` find nothing. */
function valueAtSteps(root: unknown, steps: PointerStep[]): unknown {
  let node = root
  for (const step of steps) {
    if (Array.isArray(node)) {
      if (step.index < 0 || step.index >= node.length) return undefined
      node = node[step.index]
    } else if (isPlainObject(node) && !isLosslessNumber(node) && Object.hasOwn(node, step.key)) {
      node = node[step.key]
    } else {
      return undefined
    }
  }
  return node
}

/** A value as URL text: strings as they are, numbers and booleans as JSON writes them, nothing else. */
function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  if (isLosslessNumber(value)) return value.value
  return undefined
}

function fail(text: string, reason: string): never {
  throw new RuntimeExpressionError(text, reason)
}
