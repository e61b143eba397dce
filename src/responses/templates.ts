import { startupErrors } from '../errors/index.js'
import { pointerTokens } from '../openapi/resolve-ref.js'
import { type TemplateOperation, checkPlaceholder } from './template-checks.js'
import { type Expression, parseExpression } from './template-expression.js'

/** What a template may read of a request. Plain data only: templates never run code or read files. */
export interface TemplateRequest {
  method: string
  /** The URL path, e.g. `/plants/3`. */
  path: string
  /** Path parameters, percent-decoded. */
  params: Record<string, string>
  query: URLSearchParams
  header(name: string): string | undefined
  /** The parsed JSON body, if any. */
  body: unknown
  /** The answer that triggered a callback, which its fixture's `{{response...}}` placeholders read. */
  response?: { body: unknown; header(name: string): string | undefined }
}

export interface BodyTemplate {
  render(request: TemplateRequest): unknown
  /** JSON pointers of values that are a whole placeholder: their type is only known per request. */
  slots: string[]
  /** The same, as keys to walk. */
  slotKeys: string[][]
}

/** Where placeholders are compiled: the fixture named in messages, and what it answers, if known. */
interface Scope {
  where: string
  answers?: TemplateOperation
  /** A callback's fixture: `{{response...}}` reads the answer that triggered it. */
  readsResponse?: boolean
}

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g
const WHOLE = /^\{\{\s*([^{}]*?)\s*\}\}$/

type Render = (request: TemplateRequest) => unknown
/** Marks a value that is left out: a whole placeholder reading something the request lacks. */
const ABSENT = Symbol('absent')

/**
 * Compiles `{{request.body.name}}`-style placeholders in a fixture, once at start-up. A string that
 * is one placeholder takes the value with its type (a number stays a number) and disappears when
 * the request lacks it, so an optional field is echoed only when sent; placeholders inside a longer
 * string are written as text. `undefined` when the value has no placeholder. Given the operation the
 * fixture answers, each placeholder is also checked against its description (`checkPlaceholder`).
 */
export function compileTemplate(
  value: unknown,
  where: string,
  answers?: TemplateOperation,
  readsResponse = false,
): BodyTemplate | undefined {
  const slots: string[] = []
  const render = compileValue(value, '', slots, { where, answers, readsResponse })
  if (!render) return undefined
  const slotKeys = slots.map(pointerTokens)
  return { render: (request) => orNull(render(request)), slots, slotKeys }
}

/**
 * Whether a rendered value holds an object or array where a whole placeholder stood: only then can
 * it carry fields the schema does not declare (the template's own fields were checked at start-up).
 */
export function pullsInStructure(template: BodyTemplate, rendered: unknown): boolean {
  return template.slotKeys.some((path) => {
    let node = rendered
    for (const key of path)
      node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined
    return node !== null && typeof node === 'object'
  })
}

function compileValue(value: unknown, pointer: string, slots: string[], scope: Scope): Render | undefined {
  if (typeof value === 'string') return compileString(value, pointer, slots, scope)
  if (Array.isArray(value)) {
    const items = value.map((item, i) => compileValue(item, `${pointer}/${i}`, slots, scope))
    if (!items.some(Boolean)) return undefined
    return (request) =>
      value.flatMap((item, i) => (items[i] ? [items[i]!(request)].filter((v) => v !== ABSENT) : [item]))
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).map(
      ([key, item]) => [key, item, compileValue(item, `${pointer}/${escape(key)}`, slots, scope)] as const,
    )
    if (!entries.some(([, , render]) => render)) return undefined
    return (request) => {
      const out: Record<string, unknown> = {}
      for (const [key, item, render] of entries) {
        const rendered = render ? render(request) : item
        if (rendered === ABSENT) continue
        // A "__proto__" key of the fixture is data: assignment would set the prototype instead. Only it
        // is defined: defineProperty for every key cost a call into V8's C++ each and made `out` slow to serialise (#19).
        if (key === '__proto__')
          Object.defineProperty(out, key, { value: rendered, enumerable: true, writable: true, configurable: true })
        else out[key] = rendered
      }
      return out
    }
  }
  return undefined
}

function compileString(text: string, pointer: string, slots: string[], scope: Scope): Render | undefined {
  const whole = WHOLE.exec(text)
  if (whole) {
    slots.push(pointer)
    const read = compilePlaceholder(whole[0], whole[1]!, scope)
    return (request) => read(request) ?? ABSENT
  }
  const placeholders = [...text.matchAll(PLACEHOLDER)]
  if (placeholders.length === 0) return undefined
  // Literal text and placeholders alternate: text, placeholder, text, ..., text.
  const reads: Render[] = []
  let end = 0
  for (const { 0: written, 1: expression, index } of placeholders) {
    const literal = text.slice(end, index)
    reads.push(() => literal, compilePlaceholder(written, expression!, scope))
    end = index! + written.length
  }
  const tail = text.slice(end)
  reads.push(() => tail)
  return (request) => reads.map((read) => asText(read(request))).join('')
}

/** One placeholder, `written` as in the fixture (for messages): parsed, checked against the operation, compiled. */
function compilePlaceholder(written: string, expression: string, scope: Scope): Render {
  const parsed = parseExpression(expression)
  if ('problem' in parsed) throw startupErrors.templateBadExpression(written, scope.where, parsed.problem)
  if (parsed.source.startsWith('response.') && !scope.readsResponse)
    throw startupErrors.templateBadExpression(
      written,
      scope.where,
      'only a callback’s fixture reads the answer that triggered it',
    )
  if (scope.answers) checkPlaceholder(parsed, written, scope.where, scope.answers)
  return compileRead(parsed)
}

function compileRead(expression: Expression): Render {
  switch (expression.source) {
    case 'method':
      return (request) => request.method
    case 'path':
      return (request) => request.path
    case 'params': {
      const { name } = expression
      return (request) => (Object.hasOwn(request.params, name) ? request.params[name] : undefined)
    }
    case 'query': {
      const { name } = expression
      return (request) => request.query.get(name) ?? undefined
    }
    case 'headers': {
      // Only a string is a header value: under node:http headers sit in a plain object, where
      // `constructor` or `__proto__` would otherwise read Object.prototype members.
      const name = expression.name.toLowerCase()
      return (request) => onlyString(request.header(name))
    }
    case 'body': {
      // Only own properties are read, so `__proto__` or `constructor` lead nowhere.
      const { steps } = expression
      return (request) => steps.reduce<unknown>((node, step) => readOwn(node, step), request.body)
    }
    case 'response.headers': {
      const name = expression.name.toLowerCase()
      return (request) => onlyString(request.response?.header(name))
    }
    case 'response.body': {
      const { steps } = expression
      return (request) => steps.reduce<unknown>((node, step) => readOwn(node, step), request.response?.body)
    }
  }
}

function onlyString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}

function readOwn(node: unknown, key: string): unknown {
  if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return undefined
  return (node as Record<string, unknown>)[key]
}

function asText(value: unknown): string {
  if (value === undefined || value === null || value === ABSENT) return ''
  return typeof value === 'object' ? JSON.stringify(value) : String(value)
}

function orNull(value: unknown): unknown {
  return value === ABSENT ? null : value
}

function escape(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1')
}
