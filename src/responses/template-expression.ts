import { closestWord } from '../internal/closest-word.js'

/** A placeholder's expression, parsed: where it reads, and the name or body path it reads there. */
export type Expression =
  | { source: 'method' | 'path' }
  | { source: 'params' | 'query' | 'headers'; name: string }
  | { source: 'body'; steps: string[] }
  /** The answer that triggered a callback: only a callback's fixture reads it. */
  | { source: 'response.headers'; name: string }
  | { source: 'response.body'; steps: string[] }

const SOURCES = ['body', 'params', 'query', 'headers', 'method', 'path']
/** `a.b[0].c`, or `a.0.c`: field names between dots, and array indexes in brackets. */
const BODY_PATH = /^[^.[\]]+(?:\.[^.[\]]+|\[\d+\])*$/
const BODY_STEP = /([^.[\]]+)|\[(\d+)\]/g

/**
 * `request.body.a.b[0]`, `request.params.id`, `request.query.q`, `request.headers.x-id`,
 * `request.method`, `request.path`; anything else is a problem, said with a hint where one helps.
 * A name may hold spaces or quotes (a JSON field may be called `first name`): whether such a field
 * exists is for the request schema to say (`checkPlaceholder`), not for the grammar.
 */
export function parseExpression(expression: string): Expression | { problem: string | undefined } {
  const filter = /\|\s*([^|]*)$/.exec(expression)
  if (filter)
    return {
      problem: `filters such as "| ${filter[1]!.trim()}" are not supported: a placeholder stands for the request value as sent`,
    }
  const [root, source, ...rest] = expression.split('.')
  const name = rest.join('.')
  if (root === 'response') {
    if (source === 'headers' && name) return { source: 'response.headers', name }
    if (source === 'body' && (!name || BODY_PATH.test(name)))
      return { source: 'response.body', steps: [...name.matchAll(BODY_STEP)].map((m) => m[1] ?? m[2]!) }
    return { problem: 'a response placeholder reads response.body (or a path in it) or response.headers.<name>' }
  }
  if (root !== 'request') return { problem: didYouMean(rootHint(expression.split('.'))) }
  if ((source === 'method' || source === 'path') && !name) return { source }
  if ((source === 'params' || source === 'query' || source === 'headers') && name) return { source, name }
  if (source === 'body' && (!name || BODY_PATH.test(name)))
    return { source, steps: [...name.matchAll(BODY_STEP)].map((m) => m[1] ?? m[2]!) }
  const meant = source !== undefined && !SOURCES.includes(source) ? closestWord(source, SOURCES) : undefined
  return { problem: didYouMean(meant && ['request', meant, ...rest].join('.')) }
}

/** `reqest.body.name` → `request.body.name`; `body.name` → `request.body.name`. */
function rootHint([root, ...rest]: string[]): string | undefined {
  if (SOURCES.includes(root!)) return ['request', root, ...rest].join('.')
  if (closestWord(root!, ['request'])) return ['request', ...rest].join('.')
  return undefined
}

function didYouMean(meant: string | undefined): string | undefined {
  return meant ? `did you mean {{${meant}}}?` : undefined
}
