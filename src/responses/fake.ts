import { createGeneratorSync } from 'json-schema-faker'
import { nodeAt } from '../spec/resolve-ref.js'

/** Generates values for schemas of the description, in a sequence that the seed fixes. */
export type Faker = (schemaPointer: string) => unknown

export function createFaker(document: unknown, seed: number): Faker {
  const generator = createGeneratorSync({
    seed,
    // Every optional field appears, and no field the schema does not declare.
    alwaysFakeOptionals: true,
    fillProperties: false,
    refResolver: (ref: string) => (nodeAt(document, ref.replace(/^#/, '')) ?? {}) as never,
  })
  return (schemaPointer) => generator.generate({ $ref: `#${schemaPointer}` })
}
