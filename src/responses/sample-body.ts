import * as openapiSampler from 'openapi-sampler'
import { copyWithinBudget } from './fake.js'
import type { GenerationBudget } from './generation-budget.js'
import type { Deadline } from './generation-deadline.js'

/**
 * Makes the one body a schema stands for, the same on every call and every run: its examples,
 * defaults, first enum values and format samples (`2019-08-24T14:15:22Z`), as Prism's static mode
 * answers. What it makes is not always valid (a pattern, a bound it does not honour, a recursion cut
 * short): the caller checks and mends it like a generated body. Given a deadline, sampling stops
 * with its error once the deadline has passed.
 */
export type Sampler = (schemaPointer: string, deadline?: Deadline) => unknown

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
 * @note openapi-sampler (Redocly) beat @stoplight/json-schema-sampler, Prism's own, on real
 * descriptions: figures in BENCHMARKS.md ("Static bodies"), from `npm run bench:sampler`.
 */
export function createSampler(document: unknown, { fillProperties, budget, beyondBudget }: SamplerOptions): Sampler {
  const options = { quiet: true, skipNonRequired: !fillProperties, skipWriteOnly: true }
  let read: object | undefined = beyondBudget ? undefined : (document as object)
  return (schemaPointer, deadline) => {
    read ??= copyWithinBudget(document, budget) as object
    current = deadline
    try {
      return openapiSampler.sample({ $ref: `#${schemaPointer}` }, options, read)
    } finally {
      current = undefined
    }
  }
}

/**
 * The deadline of the body being sampled. Sampling is synchronous, so one slot serves every app.
 * openapi-sampler takes no deadline, but looks its per-type samplers up in a table it exports
 * (`_samplers`) for every value it makes: each is wrapped once to tick the deadline, so that lists
 * nested in lists (60 × 60 × 60 items pass every per-schema check) stop within the budget too.
 */
let current: Deadline | undefined
const samplers = (openapiSampler as unknown as { _samplers: Record<string, (...args: unknown[]) => unknown> })._samplers
for (const [type, sampleType] of Object.entries(samplers)) {
  samplers[type] = (...args) => {
    current?.tick()
    return sampleType(...args)
  }
}
