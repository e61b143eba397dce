import { isLosslessNumber } from 'lossless-json'
import { isPlainObject } from '../internal/plain-object.js'
import { ANYTHING, stepInto } from '../openapi/step-into-schema.js'

/** One step of a JSON path: a field name, or an array index. */
export type PathStep = string | number

const DOT_NAME = /\.([^.[\]]*)/y
const INDEX = /\[(\d+)\]/y
const QUOTED = /\[(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\]/y

/**
 * The steps of a JSON path as rules write it: `$` (the whole body), `$.pot.size`, `$.tags[0]`,
 * `$['odd key']`, `$["x"]`. Only paths naming one value: wildcards, `..`, filters and slices would
 * make a condition about many values, which no operator reads. Returns what is wrong, as text, for
 * anything else.
 */
export function parseJsonPath(path: string): PathStep[] | string {
  if (!path.startsWith('$')) return 'a path starts at $ (the whole body), as in $.name'
  const steps: PathStep[] = []
  let at = 1
  while (at < path.length) {
    const parsed = path[at] === '.' ? dotStep(path, at) : path[at] === '[' ? bracketStep(path, at) : undefined
    if (parsed === undefined) return `${JSON.stringify(path[at])} at character ${at + 1} is no step; use .name or [0]`
    if (typeof parsed === 'string') return parsed
    steps.push(parsed.step)
    at = parsed.end
  }
  return steps
}

type Parsed = { step: PathStep; end: number } | string

function dotStep(path: string, at: number): Parsed {
  if (path[at + 1] === '.') return 'recursive descent (..) is not supported'
  DOT_NAME.lastIndex = at
  const name = DOT_NAME.exec(path)![1]!
  if (name === '') return `"." at character ${at + 1} is followed by no field name`
  if (name === '*') return 'wildcards (*) are not supported'
  return { step: name, end: DOT_NAME.lastIndex }
}

function bracketStep(path: string, at: number): Parsed {
  INDEX.lastIndex = at
  const index = INDEX.exec(path)
  if (index) {
    const step = Number(index[1])
    return Number.isSafeInteger(step) ? { step, end: INDEX.lastIndex } : `index ${index[1]} is too large`
  }
  QUOTED.lastIndex = at
  const quoted = QUOTED.exec(path)
  if (quoted) return { step: (quoted[1] ?? quoted[2]!).replace(/\\(.)/g, '$1'), end: QUOTED.lastIndex }
  const close = path.indexOf(']', at)
  if (close < 0) return `"[" at character ${at + 1} is never closed`
  const inside = path.slice(at + 1, close).trim()
  if (inside === '*') return 'wildcards ([*]) are not supported'
  if (/^[?(]|[:,]/.test(inside)) return `[${inside}]: filters, slices and unions are not supported`
  return `[${inside}] is neither an index ([0]) nor a quoted name (['name'])`
}

/** The value at a path, `undefined` where it is absent: own fields of plain objects and items of arrays only. */
export function readJsonPath(root: unknown, steps: readonly PathStep[]): unknown {
  let node = root
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!
    if (typeof step === 'number') {
      if (!Array.isArray(node) || step >= node.length) return undefined
      node = node[step]
    } else {
      // Own fields only: `$.constructor` of `{}` is absent, and a LosslessNumber has no fields.
      if (!isPlainObject(node) || isLosslessNumber(node) || !Object.hasOwn(node, step)) return undefined
      node = node[step]
    }
  }
  return node
}

/** Steps written back as a path: `$.pot`, `$.tags[0]`, `$['odd key']`. */
export function formatJsonPath(steps: readonly PathStep[]): string {
  let path = '$'
  for (const step of steps) {
    if (typeof step === 'number') path += `[${step}]`
    else if (/^[A-Za-z_][\w-]*$/.test(step)) path += `.${step}`
    else path += `['${step.replace(/[\\']/g, '\\$&')}']`
  }
  return path
}

/**
 * Why no body valid against the schema holds a value at the path (`the request body schema has no
 * "colour" at $.pot`), or `undefined` when one may: a condition there could never hold, so the rule
 * is written wrong. Where the schema takes any value the rest of the path cannot be judged.
 */
export function findImpossibleStep(document: unknown, schema: unknown, steps: readonly PathStep[]): string | undefined {
  let schemas: unknown[] = [schema]
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!
    const next: unknown[] = []
    for (const current of schemas) {
      const found = stepInto(document, current, String(step))
      if (found === ANYTHING) return undefined
      next.push(...found)
    }
    if (next.length === 0) {
      const what = typeof step === 'number' ? `item ${step}` : JSON.stringify(step)
      return `the request body schema has no ${what} at ${formatJsonPath(steps.slice(0, i))}`
    }
    schemas = next
  }
  return undefined
}
