import { type MockError, type Violation, errors, isMockError } from '../errors/index.js'
import type { DeclaredMedia } from './declared-responses.js'
import type { Deadline } from '../generation/generation-deadline.js'
import { BrokenBody, type Draw, generateValid, isSliceOver } from './generate-valid.js'
import type { RenderContext } from './render-response.js'
import { seededRandom } from '../generation/seeded-random.js'
import { serializeBody } from './serialize-body.js'
import { utf8ByteLength } from '../internal/bytes.js'
import { endlessPath } from '../generation/endless-schema.js'

/** A body made from a schema, serialised: `body` is undefined when the media type cannot carry the value. */
export interface MadeBody {
  body: string | undefined
  violations?: readonly Violation[]
}

/**
 * A body made from the schema: the static one (`sampled`), or one generated for this request. With
 * `handOff`, where the platform has a thread for it (`RenderContext.offThread`), making it may take a
 * slice of the main thread only: past it, a `HandOff` is thrown, and the pipeline has the body made
 * off the main thread (`pipeline/render-off-thread.ts`), then renders again with it (`handed`).
 */
export function madeBodyOf(
  code: string,
  media: DeclaredMedia,
  context: RenderContext,
  sampled: boolean,
  handOff = false,
): MadeBody {
  const { handed } = context
  if (handed !== undefined && handed.media === media) {
    context.handed = undefined
    if (sampled) sampledBodies.set(media, handed.made)
    return handed.made
  }
  refuseEndless(code, media, context)
  const sliceMs = handOff ? context.offThread?.sliceMs : undefined
  try {
    return sampled
      ? sampledBodyOf(code, media, context, sliceMs)
      : serializeMade(code, media, context, generateValid(code, media, context, dynamicDraw, sliceMs))
  } catch (error) {
    if (isSliceOver(error)) throw new HandOff(code, media, sampled)
    throw error
  }
}

/** A body that takes longer than the main thread's slice, to be made off it (`madeBodyOf`). */
export class HandOff extends Error {
  constructor(
    readonly code: string,
    readonly media: DeclaredMedia,
    readonly sampled: boolean,
  ) {
    super(`the body of the ${code} response (${media.mediaType}) is made off the main thread`)
    this.name = 'HandOff'
  }
}

export function isHandOff(error: unknown): error is HandOff {
  return error instanceof HandOff
}

function serializeMade(code: string, media: DeclaredMedia, context: RenderContext, made: unknown): MadeBody {
  const broken = made instanceof BrokenBody ? made : undefined
  const body = serializeBody(media.kind, broken ? broken.value : made, media.xml)
  return {
    body: body === undefined ? undefined : withinBytes(code, media, context, body),
    violations: broken?.violations,
  }
}

/**
 * The static body of a schema without an example, made on first use and kept: sampled
 * (`Sampler`), then checked and mended as a generated body is, with values drawn from seeds of
 * their own (`Faker.seeded`), so that it is the same on every request and every run whatever was
 * asked before. A consumer's snapshot test does not break because the mock restarted.
 */
function sampledBodyOf(code: string, media: DeclaredMedia, context: RenderContext, sliceMs?: number): MadeBody {
  let made = sampledBodies.get(media)
  if (made === undefined) {
    try {
      made = serializeMade(code, media, context, generateValid(code, media, context, sampledDraw, sliceMs))
    } catch (error) {
      // Handed off: made elsewhere, and kept once it comes back (`handed`).
      if (isSliceOver(error)) throw error
      // json-schema-faker still loading (in a browser, #33) is no answer to keep: the next request makes the body.
      if (isMockError(error) && error.kind === 'generator_loading') throw error
      // A schema beyond the budget, or one no body can be made of, is refused the same way every time, without the work again.
      made = error as MockError
    }
    sampledBodies.set(media, made)
  }
  if (made instanceof Error) throw made
  return made
}

/** Per declared media type (compiled per app, so each app has its own). */
const sampledBodies = new WeakMap<DeclaredMedia, MadeBody | MockError>()

/**
 * A schema no finite body meets (every instance requires itself again) is answered 500 naming it,
 * whether or not `--errors` is on: any body would be cut at a depth and break it (#30). Looked at
 * once a media type.
 */
function refuseEndless(code: string, media: DeclaredMedia, context: RenderContext): void {
  let endless = endlessBodies.get(media)
  if (endless === undefined) {
    endless = media.schemaPointer === undefined ? null : (endlessPath(context.document, media.schemaPointer) ?? null)
    endlessBodies.set(media, endless)
  }
  if (endless !== null)
    throw errors.generationFailed(
      code,
      media.schemaPointer!,
      `every instance requires itself again at ${endless} (a required property, a required item or an allOf member leads back), so no body of it ends; make that property optional or nullable`,
    )
}

/** Per declared media type: the way round of an endless schema, or null. */
const endlessBodies = new WeakMap<DeclaredMedia, string | null>()

/**
 * A generated body larger than the byte budget is refused whole, naming its schema: lists nested in
 * lists pass every start-up check and can still multiply past it.
 */
function withinBytes(code: string, media: DeclaredMedia, context: RenderContext, body: string): string {
  const limit = context.budget.bytes
  // n UTF-16 units are n to 3n bytes of UTF-8: only a body near the budget is measured.
  if (body.length * 3 <= limit) return body
  if (body.length <= limit && utf8ByteLength(body) <= limit) return body
  throw errors.generationBudget(code, media.schemaPointer!, [
    `the generated body is larger than the ${limit} bytes the budget allows (--generation-bytes raises it)`,
  ])
}

/** Per request (`--dynamic`): the app's seeded sequence of json-schema-faker values. */
function dynamicDraw(context: RenderContext, media: DeclaredMedia): Draw {
  return {
    body: (_attempt, deadline) => context.faker(media.schemaPointer!, deadline),
    part: (schema, deadline) => context.faker(schema, deadline),
    random: context.faker.random,
  }
}

/**
 * Once per media type (static): the sample first, then json-schema-faker values from seeds counted
 * within this body alone, so that the body depends on its schema only.
 */
function sampledDraw(context: RenderContext, media: DeclaredMedia): Draw {
  let seed = 0
  return {
    body: (attempt, deadline) =>
      attempt === 0
        ? sampleOrFake(context, media, deadline)
        : context.faker.seeded(media.schemaPointer!, ++seed, deadline),
    part: (schema, deadline) => context.faker.seeded(schema, ++seed, deadline),
    random: seededRandom(STATIC_SEED),
  }
}

/** Static bodies draw from this seed, whatever the app's (`--seed` orders generated bodies only). */
const STATIC_SEED = 1

/** A schema too large for the sampler (or one it cannot read) is generated from a fixed seed instead, within the deadline. */
function sampleOrFake(context: RenderContext, media: DeclaredMedia, deadline: Deadline): unknown {
  try {
    return context.sampler(media.schemaPointer!)
  } catch {
    return context.faker.seeded(media.schemaPointer!, STATIC_SEED, deadline)
  }
}
