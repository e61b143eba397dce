import type { ErrorObject } from 'ajv'
import { type Violation, errors, isMockError } from '../errors/index.js'
import type { DeclaredMedia } from './declared-responses.js'
import { bodyViolations } from '../validation/check-response-body.js'
import { type Deadline, isDeadlinePassed, startDeadline } from '../generation/generation-deadline.js'
import { leaveOutFailing } from '../generation/leave-out-failing.js'
import { mendGenerated } from '../generation/mend-generated.js'
import type { RenderContext } from './render-response.js'
import { compileValidatorNow } from '../validation/create-ajv.js'

const GENERATION_ATTEMPTS = 5

/** A generated body that no mending made meet its schema, served with how it breaks it. Only a failure allocates one. */
export class BrokenBody {
  constructor(
    readonly value: unknown,
    readonly violations: readonly Violation[],
  ) {}
}

/** Where the values of one body come from: the first value of each attempt, and what mending makes again. */
export interface Draw {
  body(attempt: number, deadline: Deadline): unknown
  part(schema: object, deadline: Deadline): unknown
  /** For the choices mending makes: a string a pattern matches, a branch to try. */
  random: () => number
}

/**
 * Generation runs within the time budget: json-schema-faker and the mending rounds stop once it has
 * passed, and the response is answered 500 naming its schema, so that no one response keeps the
 * server from answering others for longer than the budget.
 */
export function generateValid(
  code: string,
  media: DeclaredMedia,
  context: RenderContext,
  drawOf: (context: RenderContext, media: DeclaredMedia) => Draw,
  sliceMs?: number,
): unknown | BrokenBody {
  // Validators compile on their first use: start-up work done late, which the deadline does not count.
  if (media.validate) compileValidatorNow(media.validate)
  // A slice shorter than the budget ends in `SliceOver`: the body is then made off the main thread, with the whole budget.
  const slice = sliceMs !== undefined && sliceMs < context.budget.ms ? sliceMs : undefined
  const deadline = startDeadline(slice ?? context.budget.ms, context.budget.cpuTime)
  try {
    return generateMended(code, media, context, deadline, drawOf(context, media))
  } catch (error) {
    if (isMockError(error)) throw error
    if (slice !== undefined && isDeadlinePassed(error)) throw SLICE_OVER
    if (!isDeadlinePassed(error)) {
      const reason = String((error as Error)?.message ?? error).slice(0, 300)
      const key = `failed ${media.schemaPointer} ${media.mediaType}`
      if (!context.unsatisfied.has(key)) {
        context.unsatisfied.add(key)
        context.logger.warn(
          `no body can be generated for the ${code} response (${media.mediaType}, schema at #${media.schemaPointer}): ${reason}`,
        )
      }
      throw errors.generationFailed(code, media.schemaPointer!, reason)
    }
    throw errors.generationBudget(code, media.schemaPointer!, [
      `generating it took longer than the ${deadline.ms} ms the budget allows (--generation-ms raises it)`,
    ])
  }
}

/** The main thread's slice ran out before the body was made (`generateValid`'s `sliceMs`). */
const SLICE_OVER = new Error('the main thread slice ran out')

export function isSliceOver(error: unknown): boolean {
  return error === SLICE_OVER
}

/**
 * json-schema-faker is not exact at every edge (large bounds, some patterns, `null` where recursion
 * stops, formats it does not know), so each body is checked against its schema, mended where the
 * errors say how (`mendGenerated`), and regenerated a few times. A schema that still cannot be
 * met is warned about once, naming it, and the last body is served, as a `BrokenBody` that says how it breaks it.
 */
function generateMended(
  code: string,
  media: DeclaredMedia,
  context: RenderContext,
  deadline: Deadline,
  draw: Draw,
): unknown | BrokenBody {
  const key = `${media.schemaPointer} ${media.mediaType}`
  // A schema known to be beyond reach gets one mended body, and no time spent on more.
  const attempts = context.unsatisfied.has(key) ? 1 : GENERATION_ATTEMPTS
  let value: unknown
  let problems: Violation[] = []
  for (let attempt = 0; attempt < attempts; attempt++) {
    value = draw.body(attempt, deadline)
    problems = bodyViolations(context, media, value)
    problems = mend(context, media, value, problems, deadline, draw)
    // What mending could not mend is left out where it may be, and what that leaves missing mended again.
    if (problems.length > 0 && leaveOutFailing(value, errorsOf(context, media, value, deadline), context.budget))
      problems = mend(context, media, value, bodyViolations(context, media, value), deadline, draw)
    if (problems.length === 0) return value
    const branch = fromOneBranch(context, media, value, deadline, draw)
    if (branch !== undefined) return branch
    deadline.check()
  }
  const sentences = problems.map((v) => `${v.path} ${v.message}`)
  if (sentences.some((p) => BUDGET_PROBLEM.test(p)) && context.beyondBudget)
    throw errors.generationBudget(code, media.schemaPointer!, sentences)
  if (context.unsatisfied.has(key)) return new BrokenBody(value, problems)
  context.unsatisfied.add(key)
  context.logger.warn(
    `no body generated for the ${code} response (${media.mediaType}, schema at #${media.schemaPointer}) meets its schema after ${GENERATION_ATTEMPTS} tries; the last one is served: ${sentences.join('; ')}`,
  )
  return new BrokenBody(value, problems)
}

/** Mending rounds over a generated value, in place, until it meets its schema or they run out: the problems left. */
function mend(
  context: RenderContext,
  media: DeclaredMedia,
  value: unknown,
  problems: Violation[],
  deadline: Deadline,
  draw: Draw,
): Violation[] {
  const regenerate = (schema: object) => draw.part(schema, deadline)
  for (
    let round = 0;
    problems.length > 0 &&
    round < MENDING_ROUNDS &&
    mendGenerated(value, errorsOf(context, media, value, deadline), regenerate, context.budget, draw.random);
    round++
  ) {
    deadline.check()
    problems = bodyViolations(context, media, value)
  }
  return problems
}

/** Each round mends one layer (leave out, then generate again what is then missing), so a few are needed. */
const MENDING_ROUNDS = 6

/** Problems a body has where its prepared schema left out what the budget cannot hold (`withinBudget`): too short, too few, no pattern. */
const BUDGET_PROBLEM = /must NOT have fewer than|must match pattern/

/**
 * A body whose own schema is a `oneOf` whose branches overlap (`[string, Pet, string]`: a string
 * matches two) is generated from each branch in turn, until one gives a body that meets the whole.
 */
function fromOneBranch(
  context: RenderContext,
  media: DeclaredMedia,
  value: unknown,
  deadline: Deadline,
  draw: Draw,
): unknown {
  const root = errorsOf(context, media, value, deadline).find(
    (e) => e.instancePath === '' && (e.keyword === 'oneOf' || e.keyword === 'anyOf'),
  )
  const branches: unknown[] = Array.isArray(root?.schema) ? root.schema : []
  for (const branch of branches) {
    if (typeof branch !== 'object' || branch === null) continue
    const candidate = draw.part(branch, deadline)
    if (bodyViolations(context, media, candidate).length === 0) return candidate
  }
  return undefined
}

function errorsOf(
  context: RenderContext,
  media: DeclaredMedia,
  value: unknown,
  deadline: Deadline,
): readonly ErrorObject[] {
  // Made, and compiled, when a first body needs mending: not generation, so not counted.
  const explain = deadline.excluding(() => context.explain(media.schemaPointer!))
  return explain(value) ? [] : (explain.errors ?? [])
}
