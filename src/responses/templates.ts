import { StartupError } from '../errors.js'
import { pointerTokens } from '../spec/resolve-ref.js'

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
}

export interface BodyTemplate {
  render(request: TemplateRequest): unknown
  /** JSON pointers of values that are a whole placeholder: their type is only known per request. */
  slots: string[]
  /** The same, as keys to walk. */
  slotKeys: string[][]
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
 * string are written as text. `undefined` when the value has no placeholder.
 */
export function compileTemplate(value: unknown, where: string): BodyTemplate | undefined {
  const slots: string[] = []
  const render = compileValue(value, '', slots, where)
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
    for (const key of path) node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined
    return node !== null && typeof node === 'object'
  })
}

function compileValue(value: unknown, pointer: string, slots: string[], where: string): Render | undefined {
  if (typeof value === 'string') return compileString(value, pointer, slots, where)
  if (Array.isArray(value)) {
    const items = value.map((item, i) => compileValue(item, `${pointer}/${i}`, slots, where))
    if (!items.some(Boolean)) return undefined
    return (request) => value.flatMap((item, i) => (items[i] ? [items[i]!(request)].filter((v) => v !== ABSENT) : [item]))
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).map(([key, item]) => [key, item, compileValue(item, `${pointer}/${escape(key)}`, slots, where)] as const)
    if (!entries.some(([, , render]) => render)) return undefined
    return (request) => {
      const out: Record<string, unknown> = {}
      for (const [key, item, render] of entries) {
        const rendered = render ? render(request) : item
        // A "__proto__" key of the fixture is data: assignment would set the prototype instead.
        if (rendered !== ABSENT) Object.defineProperty(out, key, { value: rendered, enumerable: true, writable: true, configurable: true })
      }
      return out
    }
  }
  return undefined
}

function compileString(text: string, pointer: string, slots: string[], where: string): Render | undefined {
  const whole = WHOLE.exec(text)
  if (whole) {
    slots.push(pointer)
    const read = compileExpression(whole[1]!, where)
    return (request) => read(request) ?? ABSENT
  }
  const parts = text.split(PLACEHOLDER)
  if (parts.length === 1) return undefined
  // split() with a capture group alternates literal text and expressions.
  const reads = parts.map((part, i) => (i % 2 ? compileExpression(part, where) : () => part))
  return (request) => reads.map((read) => asText(read(request))).join('')
}

/**
 * `request.body.a.b[0]`, `request.params.id`, `request.query.q`, `request.headers.x-id`,
 * `request.method`, `request.path`. Only own properties are read, so `__proto__` or
 * `constructor` lead nowhere.
 */
function compileExpression(expression: string, where: string): (request: TemplateRequest) => unknown {
  const [root, source, ...rest] = expression.split('.')
  const name = rest.join('.')
  if (root !== 'request') throw badExpression(expression, where)
  if (source === 'method' && !name) return (request) => request.method
  if (source === 'path' && !name) return (request) => request.path
  if (source === 'params' && name) return (request) => (Object.hasOwn(request.params, name) ? request.params[name] : undefined)
  if (source === 'query' && name) return (request) => request.query.get(name) ?? undefined
  // Only a string is a header value: under node:http headers sit in a plain object, where
  // `constructor` or `__proto__` would otherwise read Object.prototype members.
  if (source === 'headers' && name) return (request) => onlyString(request.header(name.toLowerCase()))
  if (source === 'body') {
    const steps = name ? name.split(/\.|\[(\d+)\]/).filter((s) => s !== undefined && s !== '') : []
    return (request) => steps.reduce<unknown>((node, step) => readOwn(node, step), request.body)
  }
  throw badExpression(expression, where)
}

function onlyString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}

function readOwn(node: unknown, key: string): unknown {
  if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return undefined
  return (node as Record<string, unknown>)[key]
}

function badExpression(expression: string, where: string): StartupError {
  return new StartupError(
    `${where}: "{{${expression}}}" is not a template expression; use request.body.<field>, request.params.<name>, request.query.<name>, request.headers.<name>, request.method or request.path.`,
  )
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
