/**
 * What generation may make, at most: strings of 100,000 characters, lists and objects of 1,000
 * items. A schema that asks for more (`minLength: 5000000`, `minItems: 300000`, `x{600000000}`)
 * blocked the server for seconds or exhausted its heap; it is warned about at start-up, and a
 * response that cannot be met within the budget is answered 500, naming its schema.
 */
export const GENERATION_BUDGET = { chars: 100_000, items: 1_000 } as const

/** Whether a schema asks for more than the budget allows; `what` is told which keyword. */
export function exceedsBudget(schema: Record<string, any>): string | undefined {
  if (typeof schema.minLength === 'number' && schema.minLength > GENERATION_BUDGET.chars) return `minLength ${schema.minLength}`
  for (const keyword of ['minItems', 'minProperties']) {
    if (typeof schema[keyword] === 'number' && schema[keyword] > GENERATION_BUDGET.items) return `${keyword} ${schema[keyword]}`
  }
  if (typeof schema.pattern === 'string' && largestRepeat(schema.pattern) > GENERATION_BUDGET.chars) return `pattern ${schema.pattern.slice(0, 40)}`
  return undefined
}

/** The largest count in a pattern's `{n}`, `{n,}` or `{n,m}` repetitions. */
function largestRepeat(pattern: string): number {
  let largest = 0
  for (const match of pattern.matchAll(/\{(\d{1,12})(?:,(\d{0,12}))?\}/g)) largest = Math.max(largest, Number(match[1]), Number(match[2] || 0))
  return largest
}

/** The prepared copy of a schema keeps to the budget: the body then fails its check and is answered as above. */
export function withinBudget(schema: Record<string, any>): Record<string, any> {
  if (typeof schema.minLength === 'number' && schema.minLength > GENERATION_BUDGET.chars) schema.minLength = GENERATION_BUDGET.chars
  if (typeof schema.maxLength === 'number' && schema.maxLength > GENERATION_BUDGET.chars) schema.maxLength = GENERATION_BUDGET.chars
  for (const keyword of ['minItems', 'minProperties']) {
    if (typeof schema[keyword] === 'number' && schema[keyword] > GENERATION_BUDGET.items) schema[keyword] = GENERATION_BUDGET.items
  }
  if (typeof schema.pattern === 'string' && largestRepeat(schema.pattern) > GENERATION_BUDGET.chars) delete schema.pattern
  return schema
}
