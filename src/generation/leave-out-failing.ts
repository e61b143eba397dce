import type { ErrorObject } from 'ajv'
import { pointerTokens } from '../openapi/resolve-ref.js'
import { type GenerationBudget, GENERATION_BUDGET, exceedsBudget } from './generation-budget.js'
import { isPlainObject } from '../internal/plain-object.js'
import { valueAt } from '../internal/value-at.js'

/**
 * The last resort where mending rounds did not meet the schema: every property whose value still
 * breaks its schema is left out. A schema no value meets (vimeo: `type: array` beside an `enum` of
 * strings; visualstudio: `type: integer` beside `enum: ["0 (User)"]`) is often that of an optional
 * property; a required one is then generated again, and fails as before.
 * @returns whether anything was left out
 */
export function leaveOutFailing(
  value: unknown,
  errors: readonly ErrorObject[],
  budget: GenerationBudget = GENERATION_BUDGET,
): boolean {
  let changed = false
  // Deepest first, so that leaving out a parent does not hide a child's path. What fails for the
  // generation budget stays, so the answer names it (`generation_budget`).
  const paths = errors
    .filter((error) => !(isPlainObject(error.parentSchema) && exceedsBudget(error.parentSchema, budget)))
    .map((error) => pointerTokens(error.instancePath))
    .filter((tokens) => tokens.length > 0)
  paths.sort((a, b) => b.length - a.length)
  for (const tokens of paths) {
    const parent = valueAt(value, tokens.slice(0, -1))
    const last = tokens[tokens.length - 1]!
    if (isPlainObject(parent) && Object.hasOwn(parent, last)) {
      delete parent[last]
      changed = true
    }
  }
  return changed
}
