import type { ErrorObject } from 'ajv/dist/2020.js'
import type { Violation } from '../errors/index.js'
import { pointerTokens } from '../openapi/resolve-ref.js'
import { EXACT_INT64_KEYWORD } from './create-ajv.js'

const MAX_VIOLATIONS = 25

/** Ajv's errors as violations named by a JSON path under `root` (e.g. `body.tag`, `query.limit`). */
export function toViolations(root: string, errors: readonly ErrorObject[] | null | undefined): Violation[] {
  const seen = new Set<string>()
  const violations: Violation[] = []
  // `1.5` for an int64 breaks both `type` and `format`; the type error says it all.
  const wrongType = new Set((errors ?? []).filter((e) => e.keyword === 'type').map((e) => e.instancePath))
  for (const error of errors ?? []) {
    if ((error.keyword === 'format' || error.keyword === EXACT_INT64_KEYWORD) && wrongType.has(error.instancePath))
      continue
    const violation = boundedViolation(describeError(root, error))
    const key = `${violation.path}\u0000${violation.message}`
    if (seen.has(key)) continue
    seen.add(key)
    violations.push(violation)
    if (violations.length === MAX_VIOLATIONS) break
  }
  return violations
}

/** Longest violation path and message kept: a 1 MB property name must not become a 1 MB violation, kept in the journal and sent back. */
const MAX_PATH_CHARS = 256
const MAX_MESSAGE_CHARS = 512

/** A violation cut to bounded size everywhere it goes (answer, journal, log line). */
function boundedViolation({ path, message }: Violation): Violation {
  return { path: cut(path, MAX_PATH_CHARS), message: cut(message, MAX_MESSAGE_CHARS) }
}

function cut(text: string, max: number): string {
  if (text.length <= max) return text
  // A slice of a string keeps the whole string alive in V8: a 256-character cut of a 1 MB property
  // name would still hold the megabyte for as long as the journal holds the violation. A copy does not.
  return JSON.parse(JSON.stringify(`${text.slice(0, max - 1)}…`)) as string
}

function describeError(root: string, error: ErrorObject): Violation {
  const path = root + jsonPath(error.instancePath)
  const params = error.params as Record<string, any>
  switch (error.keyword) {
    case 'required':
      return { path: `${path}${jsonPath(`/${params.missingProperty}`)}`, message: 'is required' }
    case 'additionalProperties':
    case 'unevaluatedProperties': {
      const name = params.additionalProperty ?? params.unevaluatedProperty
      return { path: `${path}${jsonPath(`/${name}`)}`, message: 'is not declared by the schema' }
    }
    case 'type':
      return { path, message: `must be ${article(String(params.type))}` }
    case 'format':
      return { path, message: formatMessage(String(params.format)) }
    case EXACT_INT64_KEYWORD:
      return { path, message: formatMessage('int64') }
    case 'enum':
      return {
        path,
        message: `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
      }
    default:
      return { path, message: error.message ?? `fails the "${error.keyword}" rule` }
  }
}

function formatMessage(format: string): string {
  if (format === 'int64') return 'must be a signed 64-bit integer (-9223372036854775808 to 9223372036854775807)'
  if (format === 'int32') return 'must be a signed 32-bit integer (-2147483648 to 2147483647)'
  return `must be a valid "${format}"`
}

function article(type: string): string {
  return remembered(articles, type, () =>
    type
      .split(',')
      .map((t) => (t === 'null' ? 'null' : /^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`))
      .join(' or '),
  )
}

/** `/items/0/name` → `.items[0].name` */
function jsonPath(instancePath: string): string {
  if (!instancePath) return ''
  return remembered(jsonPaths, instancePath, () => pointerTokens(instancePath).map(pathSegment).join(''))
}

/**
 * The same few instance paths and types come back in every invalid request of a load: each is written
 * once. Splitting and escaping them again cost some 12k instructions a 400 (#19). Bounded: a full map
 * takes no more, and a long path is never kept, so that paths a client makes up (`/a1`, `/a2`, ...)
 * hold at most some 1,000 short strings.
 */
const MAX_REMEMBERED = 1_000
const articles = new Map<string, string>()
const jsonPaths = new Map<string, string>()

function remembered(written: Map<string, string>, key: string, write: () => string): string {
  let text = written.get(key)
  if (text === undefined) {
    if (written.size >= MAX_REMEMBERED || key.length > MAX_PATH_CHARS) return write()
    text = write()
    written.set(key, text)
  }
  return text
}

/** A violation path from its parts: `fieldPath('header', 'x-id')` → `header["x-id"]`. */
export function fieldPath(root: string, ...segments: Array<string | number>): string {
  return root + segments.map((s) => (typeof s === 'number' ? `[${s}]` : pathSegment(s))).join('')
}

function pathSegment(token: string): string {
  return /^\d+$/.test(token)
    ? `[${token}]`
    : /^[A-Za-z_$][\w$]*$/.test(token)
      ? `.${token}`
      : `[${JSON.stringify(token)}]`
}
