import { errors } from '../errors/index.js'
import { nodeAt } from '../openapi/resolve-ref.js'
import { type GenerationBudget, GENERATION_BUDGET, withinBudget } from './generation-budget.js'
import type { Deadline } from './generation-deadline.js'
import { prepareForGeneration } from './prepare-for-generation.js'
import { seededRandom } from './seeded-random.js'
import { onDemand } from '../internal/on-demand.js'

/**
 * Generates values for schemas of the description, in a sequence that the seed fixes: the schema at
 * a JSON pointer, or a schema object of the description (its `$ref`s resolve in the description).
 * Given a deadline, generation stops with its error once the deadline has passed.
 */
export interface Faker {
  (schema: string | object, deadline?: Deadline): unknown
  /**
   * The same, from a seed of its own instead of the next in the sequence: what it makes depends on
   * nothing else the app generated before, so a static body mended with it is the same on every run.
   */
  seeded(schema: string | object, seed: number, deadline?: Deadline): unknown
  /** Numbers in [0, 1) in a sequence the app's seed fixes, for the choices mending makes (`mendGenerated`). */
  readonly random: () => number
  /**
   * Some object of the description asks for more than the budget could hold (`exceedsBudget`):
   * found while preparing the copy, so that a description without one pays for no walk of its own.
   */
  readonly beyondBudget: boolean
  /**
   * json-schema-faker is loaded (`load()`). Until it is, a value asked for is refused with
   * `errors.generatorLoading` (a 500 that says so), and loading starts.
   */
  readonly loaded: boolean
  /**
   * Loads json-schema-faker, once for every app: generation is synchronous, so whoever knows a value
   * will be asked for awaits this first (the engine at start-up; in a browser, the MSW handler before
   * a request that may generate). Rejects after `LOAD_TIMEOUT_MS`; a later call tries again.
   */
  load(): Promise<void>
}

/** json-schema-faker, imported on demand: a browser fetches it only when a body is generated (#33). */
const jsonSchemaFaker = onDemand('json-schema-faker', () => import('json-schema-faker'))

/** How generated bodies are filled, per app. */
export interface FakerOptions {
  /**
   * Every optional property of an object appears (true), or only its required ones (false: the
   * mock's `fillProperties`, Prism's `--json-schema-faker-fillProperties=false`). @default true
   */
  fillProperties?: boolean
}

/**
 * A generator over a copy of the description prepared once for json-schema-faker (see
 * `prepareForGeneration`), within the app's generation budget. Give it the response view of the
 * description (`deriveReadWriteViews`), so that writeOnly properties are never generated.
 */
export function createFaker(
  document: unknown,
  seed: number,
  budget: GenerationBudget = GENERATION_BUDGET,
  options: FakerOptions = {},
): Faker {
  // Prepared at start-up, not on the first generated body: for a large description that took
  // 300 ms, and a first request must answer within 50 ms (#11).
  return createGenerator(document, seed, budget, options.fillProperties ?? true)
}

function createGenerator(document: unknown, seed: number, budget: GenerationBudget, fillProperties: boolean): Faker {
  let beyondBudget = false
  const prepared = prepareForGeneration(document, budget, () => (beyondBudget = true))
  // A schema object of the description (one a validator's error names) is generated from its prepared copy.
  const copies = copiesOf(document, prepared)
  // The deadline of the value being generated. Generation is synchronous and this faker is its
  // app's own, so one slot is enough, and another app's budget never reaches it.
  let current: Deadline | undefined
  // json-schema-faker's own sequence (`createGeneratorSync`) is seed, seed + 1, ... per value: the
  // same here, with `seeded` drawing outside it.
  let next = seed
  const options = {
    // Every optional field appears (or, told so, none does), and never a field the schema does not
    // declare. A probability of 0, not json-schema-faker's 0.5: optional fields are left out so that
    // bodies show the least a client must handle, every time. json-schema-faker's own
    // `fillProperties` is left at its default (true): false would still put a skeleton of each
    // optional object, its required fields, in the body.
    alwaysFakeOptionals: fillProperties,
    optionalsProbability: fillProperties ? 1 : 0,
    refResolver: (ref: string) => (nodeAt(prepared, ref.replace(/^#/, '')) ?? {}) as never,
    // json-schema-faker 0.6.3 takes no random function (it makes its own from the seed), but calls
    // this on every value it makes (each item, property and nested value): the deadline is checked
    // here. The value being made is finished first: a string of up to the byte budget, which it
    // makes again up to 50 times where the string's pattern and length bounds disagree (2.3 s for
    // `^x{1000000}$` beside `maxLength: 10`). The value is returned as it is, so the seeded
    // sequence is unchanged.
    outputTransform: (value: unknown) => {
      current?.tick()
      return value
    },
  }
  const generate = (schema: string | object, valueSeed: number, deadline: Deadline | undefined) => {
    current = deadline
    try {
      const target =
        typeof schema === 'string'
          ? { $ref: `#${schema}` }
          : (copies.get(schema) ?? withinBudget({ ...schema }, budget))
      return generatorOf(jsonSchemaFaker.loaded)(target as never, { ...options, seed: valueSeed })
    } finally {
      current = undefined
    }
  }
  const fake = (schema: string | object, deadline?: Deadline) => generate(schema, next++, deadline)
  const seeded = (schema: string | object, valueSeed: number, deadline?: Deadline) =>
    generate(schema, valueSeed, deadline)
  return Object.defineProperties(Object.assign(fake, { seeded, random: seededRandom(seed), beyondBudget }), {
    loaded: { get: () => jsonSchemaFaker.loaded !== undefined },
    load: { value: () => jsonSchemaFaker.load().then(() => undefined) },
  }) as Faker
}

/**
 * json-schema-faker's generator; before it is loaded, the refusal, and loading starts so that a later
 * request has it (a static body whose sample must be mended, which no request announces).
 */
function generatorOf(module: typeof jsonSchemaFaker.loaded): (typeof import('json-schema-faker'))['generateSync'] {
  if (module) return module.generateSync
  jsonSchemaFaker.load().catch(() => {
    // Told on the next body asked for, which finds it still missing.
  })
  throw errors.generatorLoading()
}

/** Each object of the description mapped to its counterpart in the prepared copy (same structure). */
function copiesOf(original: unknown, copy: unknown): WeakMap<object, object> {
  const copies = new WeakMap<object, object>()
  const stack: Array<[unknown, unknown]> = [[original, copy]]
  while (stack.length) {
    const [from, to] = stack.pop()!
    if (typeof from !== 'object' || from === null || typeof to !== 'object' || to === null || copies.has(from)) continue
    copies.set(from, to)
    for (const [key, value] of Object.entries(from))
      if (key !== 'example' && key !== 'examples') stack.push([value, (to as Record<string, unknown>)[key]])
  }
  return copies
}
