import type { ErrorObject, ValidateFunction } from 'ajv'
import { type MockError, type Violation, errors, isMockError } from '../errors.js'
import type { Logger } from '../log.js'
import type { DeclaredMedia, DeclaredResponse, StaticBody } from './declared-responses.js'
import { bodyProblems, bodyViolations, schemaProblems } from '../validation/check-response-body.js'
import { type Faker, seededRandom } from './fake.js'
import type { Sampler } from './sample-body.js'
import type { GenerationBudget } from './generation-budget.js'
import { type Deadline, isDeadlinePassed, startDeadline } from './generation-deadline.js'
import type { ResponsePlan } from './select-response.js'
import { leaveOutFailing, mendGenerated } from './mend-generated.js'
import { serializeBody } from './serialize-body.js'
import { compileValidatorNow } from '../validation/create-ajv.js'
import { type TemplateRequest, pullsInStructure } from './templates.js'

export interface RenderedResponse {
  status: number
  contentType?: string
  /** Declared headers the response carries besides Content-Type. */
  headers?: Record<string, string>
  body: string | null
  /**
   * How this answer breaks the operation's declared response, when the mock knows it does: set only
   * then. Nothing is validated again to find out: what is known comes from start-up (a made-up
   * header) or from the checks rendering makes anyway (a generated body no mending could fix).
   */
  violations?: readonly Violation[]
}

export interface RenderContext {
  document: unknown
  logger: Logger
  faker: Faker
  /** Static bodies of schemas without an example (`sampled`): the same body every time and every run. */
  sampler: Sampler
  /** Bodies are generated per request unless a `Prefer` says otherwise (`--dynamic`); else sampled. */
  dynamic: boolean
  /** Schemas no generated body could meet, already warned about. */
  unsatisfied: Set<string>
  /** What generating one body may spend: this app's own (`generationBytes`, `generationMs`). */
  budget: GenerationBudget
  /** The description has schemas that ask for more than the generation budget could hold (warned about at start-up). */
  beyondBudget: boolean
  /** A validator of the schema at a pointer whose errors carry their schemas (`verbose`), made on first use. */
  explain: (schemaPointer: string) => ValidateFunction
}

const GENERATION_ATTEMPTS = 5

/**
 * Turns a plan into bytes. Static bodies were serialised at start-up; templated fixtures are
 * filled from the request; generated ones are made here, and written as the chosen media type asks
 * (JSON, XML, or text). Whatever is made per request is checked against its schema before it is served;
 * what still breaks it is told in `violations`, with what start-up knew of the response (see `DeclaredResponse.violations`).
 */
export function renderResponse(
  plan: ResponsePlan,
  context: RenderContext,
  request?: TemplateRequest,
): RenderedResponse {
  const { response } = plan
  // The one status not taken from the description: 204 for an operation that declares no final response.
  if (!response) return { status: plan.status, body: null, violations: NO_DECLARED_RESPONSE }
  const rendered = renderDeclared(plan, response, context, request)
  if (!response.violations) return rendered
  return {
    ...rendered,
    violations: rendered.violations ? [...response.violations, ...rendered.violations] : response.violations,
  }
}

const NO_DECLARED_RESPONSE: readonly Violation[] = Object.freeze([
  { path: 'status', message: 'is 204, which the operation does not declare (it declares no final response)' },
])

/** A declared response as the plan says, with only what its body breaks: its headers, which the caller may not send, are not judged. */
export function renderDeclared(
  plan: ResponsePlan,
  response: DeclaredResponse,
  context: RenderContext,
  request?: TemplateRequest,
): RenderedResponse {
  const { status, media, source } = plan
  const headers = response.headers
  if (!media) return { status, headers, body: null }
  // Declared content that nothing can fill (no schema, no example) still comes as what was declared.
  if (source.kind === 'empty')
    return {
      status,
      contentType: media.contentType,
      headers,
      body: serializeBody(media.kind, media.kind === 'text' ? '' : {}, media.xml) ?? '',
    }
  if (source.kind === 'static') {
    // A fixture with headers of its own (a `.headers.json` beside it) carries the whole set, merged at start-up.
    const served = source.body.headers ?? headers
    if (!source.body.template || !request)
      return { status, contentType: media.contentType, headers: served, body: source.body.json }
    return renderTemplate(
      { status, contentType: media.contentType, headers: served, body: null },
      response.code,
      media,
      source.body,
      context,
      request,
    )
  }
  if (!media.schemaPointer) return { status, headers, body: null }
  const made = madeBodyOf(response.code, media, context, source.kind === 'sampled')
  if (made.body === undefined) return { status, headers, body: null }
  // A generated body comes with generated header values, where the description writes none.
  const sent =
    source.kind === 'generated' && response.generateHeaders
      ? response.generateHeaders((schema) => context.faker(schema))
      : headers
  const rendered: RenderedResponse = { status, contentType: media.contentType, headers: sent, body: made.body }
  if (made.violations) rendered.violations = made.violations
  return rendered
}

/** A body made from a schema, serialised: `body` is undefined when the media type cannot carry the value. */
interface MadeBody {
  body: string | undefined
  violations?: readonly Violation[]
}

/** A body made from the schema: the static one (`sampled`), or one generated for this request. */
function madeBodyOf(code: string, media: DeclaredMedia, context: RenderContext, sampled: boolean): MadeBody {
  return sampled
    ? sampledBodyOf(code, media, context)
    : serializeMade(code, media, context, generateValid(code, media, context, dynamicDraw))
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
function sampledBodyOf(code: string, media: DeclaredMedia, context: RenderContext): MadeBody {
  let made = sampledBodies.get(media)
  if (made === undefined) {
    try {
      made = serializeMade(code, media, context, generateValid(code, media, context, sampledDraw))
    } catch (error) {
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

/** A generated body that no mending made meet its schema, served with how it breaks it. Only a failure allocates one. */
class BrokenBody {
  constructor(
    readonly value: unknown,
    readonly violations: readonly Violation[],
  ) {}
}

/**
 * A generated body larger than the byte budget is refused whole, naming its schema: lists nested in
 * lists pass every start-up check and can still multiply past it.
 */
function withinBytes(code: string, media: DeclaredMedia, context: RenderContext, body: string): string {
  const limit = context.budget.bytes
  // n UTF-16 units are n to 3n bytes of UTF-8: only a body near the budget is measured.
  if (body.length * 3 <= limit) return body
  if (body.length <= limit && Buffer.byteLength(body) <= limit) return body
  throw errors.generationBudget(code, media.schemaPointer!, [
    `the generated body is larger than the ${limit} bytes the budget allows (--generation-bytes raises it)`,
  ])
}

/** A template that renders outside its schema (say, echoing a field the request lacks) yields to a generated body. */
function renderTemplate(
  rendered: RenderedResponse,
  code: string,
  media: DeclaredMedia,
  body: StaticBody,
  context: RenderContext,
  request: TemplateRequest,
): RenderedResponse {
  const template = body.template!
  const value = template.render(request)
  // The template's own fields were checked at start-up; only an object a placeholder pulled in can add undeclared ones.
  const problems = pullsInStructure(template, value)
    ? bodyProblems(context, media, value)
    : schemaProblems(media, value)
  if (problems.length === 0) {
    rendered.body = JSON.stringify(value)
    return rendered
  }
  context.logger.warn(
    `the fixture "${body.name}" (${code}) rendered a body that breaks its schema (${problems.join('; ')}); a generated body is served instead`,
  )
  const made = madeBodyOf(code, media, context, !context.dynamic)
  rendered.body = made.body ?? null
  if (made.violations) rendered.violations = made.violations
  return rendered
}

/** Where the values of one body come from: the first value of each attempt, and what mending makes again. */
interface Draw {
  body(attempt: number, deadline: Deadline): unknown
  part(schema: object, deadline: Deadline): unknown
  /** For the choices mending makes: a string a pattern matches, a branch to try. */
  random: () => number
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

/**
 * Generation runs within the time budget: json-schema-faker and the mending rounds stop once it has
 * passed, and the response is answered 500 naming its schema, so that no one response keeps the
 * server from answering others for longer than the budget.
 */
function generateValid(
  code: string,
  media: DeclaredMedia,
  context: RenderContext,
  drawOf: (context: RenderContext, media: DeclaredMedia) => Draw,
): unknown | BrokenBody {
  // Validators compile on their first use: start-up work done late, which the deadline does not count.
  if (media.validate) compileValidatorNow(media.validate)
  const deadline = startDeadline(context.budget.ms)
  try {
    return generateMended(code, media, context, deadline, drawOf(context, media))
  } catch (error) {
    if (isMockError(error)) throw error
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
