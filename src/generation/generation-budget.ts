import { walkSchemas } from '../openapi/walk.js'

/**
 * What generating one response body may spend (#12). A schema that asks for more (`minLength:
 * 5000000`, `minItems: 300000`, `x{600000000}`, lists nested in lists) blocked the server for
 * seconds, overflowed its stack or exhausted its heap. Each app has its own budget, from its options.
 */
export interface GenerationBudget {
  /** The largest generated body, serialised, in bytes (`generationBytes`, `--generation-bytes`). */
  bytes: number
  /** How long json-schema-faker and the mending rounds may run for one body (`generationMs`, `--generation-ms`). */
  ms: number
  /** The deadline's clock: milliseconds of CPU time the process has used (`Platform.cpuTime`); the wall clock without it. */
  cpuTime?: () => number
}

/**
 * The budget of an app whose options set none.
 * - 1 MiB, the largest request body the mock accepts by default (`--max-body`): the largest bodies
 *   generated for real descriptions are well below it (AWS Glue 475 KB, Stripe 376 KB, GitHub 88 KB,
 *   one request to each of their first 400 operations), and a string or list that alone needs
 *   more is refused at once.
 * - 5 s: the slowest ordinary bodies are Stripe's (deep `anyOf` expansions, mended over several
 *   rounds): of its first 400 operations, 8 took more than 1 s of generation on a loaded two-core
 *   machine, none more than 2.5 s. Nested lists that would take minutes are stopped there.
 */
export const GENERATION_BUDGET: Readonly<GenerationBudget> = Object.freeze({ bytes: 1024 * 1024, ms: 5_000 })

/**
 * Generated strings are at most this long unless their `minLength` asks for more: a `maxLength:
 * 10000000` shows its shape as well with a shorter string. The figure was the whole string budget
 * before the byte budget, and stays, so that the same seed gives the same bodies as before.
 */
const LONG_STRING = 100_000

/** Bytes a list item and an object property take at the least, comma included (`0,` and `"":0,`). */
const SMALLEST_ITEM = 2
const SMALLEST_PROPERTY = 5

/**
 * Whether a schema asks for more than the budget could ever hold, and which keyword: a string
 * longer than the byte budget, a list or object whose smallest serialisation is larger, a pattern
 * that repeats something more times than the budget has bytes.
 */
export function exceedsBudget(
  schema: Record<string, any>,
  budget: GenerationBudget = GENERATION_BUDGET,
): string | undefined {
  if (typeof schema.minLength === 'number' && schema.minLength > budget.bytes) return `minLength ${schema.minLength}`
  if (typeof schema.minItems === 'number' && schema.minItems * SMALLEST_ITEM > budget.bytes)
    return `minItems ${schema.minItems}`
  if (typeof schema.minProperties === 'number' && schema.minProperties * SMALLEST_PROPERTY > budget.bytes)
    return `minProperties ${schema.minProperties}`
  if (typeof schema.pattern === 'string' && largestRepeat(schema.pattern) > budget.bytes)
    return `pattern ${schema.pattern.slice(0, 40)}`
  return undefined
}

/** The largest count in a pattern's `{n}`, `{n,}` or `{n,m}` repetitions. */
function largestRepeat(pattern: string): number {
  let largest = 0
  for (const match of pattern.matchAll(/\{(\d{1,12})(?:,(\d{0,12}))?\}/g))
    largest = Math.max(largest, Number(match[1]), Number(match[2] || 0))
  return largest
}

/**
 * The prepared copy of a schema (the one json-schema-faker reads; validators keep the original)
 * asks for nothing beyond the budget. What the budget cannot hold is dropped rather than cut to
 * the budget: the body fails its check either way and is answered 500 naming its schema (or the
 * optional property is left out), and a short value costs nothing to make.
 */
export function withinBudget(
  schema: Record<string, any>,
  budget: GenerationBudget = GENERATION_BUDGET,
): Record<string, any> {
  for (let excess = exceedsBudget(schema, budget); excess !== undefined; excess = exceedsBudget(schema, budget)) {
    const keyword = excess.slice(0, excess.indexOf(' '))
    delete schema[keyword]
    // Without its minLength, a string is any short one: its maxLength would only make it longer.
    if (keyword === 'minLength') delete schema.maxLength
  }
  const longest = Math.max(
    typeof schema.minLength === 'number' ? schema.minLength : 0,
    Math.min(LONG_STRING, budget.bytes),
  )
  if (typeof schema.maxLength === 'number' && schema.maxLength > longest) schema.maxLength = longest
  return schema
}

/**
 * Start-up warnings for the schemas of a description that ask for more than the budget could ever
 * hold, one per excess (`minLength 5000000`), naming up to three schemas by pointer, the budget and
 * the flag that raises it. None means every response can at least be tried.
 */
export function compileBudgetWarnings(document: Record<string, any>, budget: GenerationBudget): string[] {
  const pointers = new Map<string, string[]>()
  walkSchemas(document, (schema, pointer) => {
    const excess = exceedsBudget(schema, budget)
    if (excess === undefined) return
    const list = pointers.get(excess) ?? []
    if (list.length <= MAX_POINTERS_SHOWN) list.push(pointer)
    pointers.set(excess, list)
  })
  return [...pointers].map(([excess, list]) => {
    const shown = list
      .slice(0, MAX_POINTERS_SHOWN)
      .map((p) => `#${p}`)
      .join(', ')
    const where = `at ${shown}${list.length > MAX_POINTERS_SHOWN ? ' and more' : ''}`
    return `a schema asks for ${excess} (${where}), more than a generated body may hold (${budget.bytes} bytes; --generation-bytes raises it): a response that needs it is answered 500 naming its schema unless a fixture or an example serves it.`
  })
}

const MAX_POINTERS_SHOWN = 3
