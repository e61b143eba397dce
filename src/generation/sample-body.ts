import { sample } from '@stoplight/json-schema-sampler'
import { copyWithinBudget } from './prepare-for-generation.js'
import type { GenerationBudget } from './generation-budget.js'

/**
 * Makes the one body a schema stands for, the same on every call and every run: its examples,
 * defaults, first enum values and format samples (`2019-08-24T14:15:22Z`), as Prism's static mode
 * answers, with the sampler Prism uses. What it makes is not always valid (a pattern, a bound it does
 * not honour, a recursion cut short with `{}`): the caller checks and mends it like a generated body.
 * It throws on a schema larger than `SAMPLE_STEPS` values, for the caller to generate instead.
 */
export type Sampler = (schemaPointer: string) => unknown

export interface SamplerOptions {
  /** Only required properties are sampled when false, as for generated bodies. */
  fillProperties: boolean
  budget: GenerationBudget
  /** Some schema of the description asks for more than the budget holds (`Faker.beyondBudget`). */
  beyondBudget: boolean
}

/**
 * A sampler over the response view of the description (writeOnly properties gone). Where some
 * schema asks for more than the budget holds, it reads a copy cut to the budget, made on first use;
 * otherwise the view itself.
 * @note @stoplight/json-schema-sampler (Prism's own, a fork of Redocly's openapi-sampler) was chosen
 * on the whole APIs.guru corpus (`npm run bench:sampler`, BENCHMARKS.md "Static bodies"): 84.6 % of
 * its bodies meet their schemas against 84.3 %, and its step limit bounds the work, where
 * openapi-sampler spent up to 9.5 s and hundreds of megabytes on one Microsoft Graph body.
 */
export function createSampler(document: unknown, { fillProperties, budget, beyondBudget }: SamplerOptions): Sampler {
  const options = { skipNonRequired: !fillProperties }
  let read: object | undefined = beyondBudget ? undefined : (document as object)
  return (schemaPointer) => {
    read ??= copyWithinBudget(document, budget) as object
    // A `$ref` fragment is percent-decoded: a `%` of the pointer's own (`/deals/50%off`) is written `%25`.
    return sampleSchema({ $ref: `#${schemaPointer.replaceAll('%', '%25')}` }, read, options)
  }
}

/** Values a sample may hold at most, as Prism sets it: beyond, the sampler throws (`SchemaSizeExceededError`). */
const SAMPLE_STEPS = 2500

/**
 * One sample of a schema of `document`. The sampler writes to `console.warn` about some schemas
 * (`minLength` beside `format: date-time`) whatever it is told: those lines would land among the
 * mock's own output, so the console is quiet while it runs (synchronously).
 */
export function sampleSchema(schema: object, document: object, options: { skipNonRequired?: boolean } = {}): unknown {
  const warn = console.warn
  console.warn = () => {}
  try {
    return sample(schema as never, { quiet: true, skipWriteOnly: true, ticks: SAMPLE_STEPS, ...options }, document)
  } finally {
    console.warn = warn
  }
}
