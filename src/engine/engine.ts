import type { ValidateFunction } from 'ajv'
import { type CompiledOperation, compileOperation, readParameterOneOfAsAnyOf } from './compile-operation.js'
import { ADMIN_PREFIX, type MockOptions, type ResolvedOptions } from '../common/config.js'
import { StartupError, startupErrors } from '../errors/index.js'
import type { Redaction } from '../journal/journal-entry.js'
import { redactionOf } from '../journal/redaction-of.js'
import type { Logger } from '../common/log.js'
import { type DeclaredResponse, settleExamples } from '../responses/declared-responses.js'
import { type Faker, createFaker } from '../generation/fake.js'
import { createSampler } from '../generation/sample-body.js'
import { type FixtureSet, loadFixtures } from '../responses/fixtures.js'
import { compileBudgetWarnings } from '../generation/generation-budget.js'
import type { ErrorContext } from '../responses/render-error.js'
import { loadScenarios } from '../scenarios/load-scenarios.js'
import { type RuleBook, ruleTargetsOf } from '../rules/rule-targets.js'
import type { CompiledEvent } from '../events/compile-events.js'
import { type Upstream, upstreamOf } from './upstream.js'
import { describeWebhooks } from '../openapi/describe-events.js'
import { type WebhookBindings, loadWebhooks } from './load-webhook-bindings.js'
import { type StatefulSetup, compileStateful } from '../state/compile-stateful.js'
import { type Scenario, builtInScenarios, indexScenarios } from '../scenarios/scenarios.js'
import { kindOf, loadXmlSupport } from '../responses/serialize-body.js'
import { compileServerPrefixes } from '../routing/compile-server-prefixes.js'
import { type Router, createRouter } from '../routing/create-router.js'
import { type SpecDocument, loadSpec } from '../openapi/load-spec.js'
import {
  type OperationDescription,
  type SharedOperationId,
  describeOperations,
  separateSharedIds,
} from '../openapi/operations.js'
import { deriveReadWriteViews } from '../openapi/read-write-only.js'
import { nodeAt } from '../openapi/resolve-ref.js'
import { resolveOptions } from './resolve-options.js'
import { type Ajv, addDescription, compileAt, createAjv, markExactIntegers } from '../validation/create-ajv.js'
import { findUnusablePatterns, loadLinearEngine, patternsIn } from '../validation/compile-pattern.js'
import type { Platform } from '../common/platform.js'
import { afterThisTurnInBackground } from '../internal/later.js'

/** Everything built once at start-up. The request path reads it and never changes it. */
export interface Engine {
  options: ResolvedOptions
  spec: SpecDocument
  operations: CompiledOperation[]
  router: Router<CompiledOperation>
  faker: Faker
  errorContext: ErrorContext
  logger: Logger
  /** Built-in scenarios and those of `fixtures/scenarios.yaml`, by name. */
  scenarios: Map<string, Scenario>
  /** API keys the description declares, redacted in the journal. */
  redaction: Redaction
  /** The description as read, for `GET /__mock/spec`. */
  source: { text: string; mediaType: string }
  /**
   * Responses whose examples are still to be checked (`deferExampleChecks`); each is checked on its
   * first use anyway (`settleExamples`), and `settleDeferredExamples` works through the rest.
   */
  deferredExamples: DeclaredResponse[]
  /** `--stateful`: the resources, their seed and record checks; `undefined` without. */
  stateful: StatefulSetup | undefined
  /** What scenario rules were read against, and runtime stubs are (`POST /__mock/stubs`). */
  rules: RuleBook
  /** The description's webhooks (OpenAPI 3.1) by name, and those `fixtures/webhooks.yaml` binds to events. */
  webhooks: Map<string, CompiledEvent>
  webhookBindings: WebhookBindings
  /** Proxy mode (`--proxy`): where requests go; `undefined` when the mock answers them. */
  upstream: Upstream | undefined
  /** The platform it runs on (`EngineSetup.platform`). */
  platform: Platform
}

/** How the engine is built, beyond the user's options. */
export interface EngineSetup {
  /** What the engine asks of the platform it runs on: files, hashing, the network (`src/node/node-platform.ts`). */
  platform: Platform
  /**
   * Check the description's examples after start-up rather than during it (`startMockServer`, which
   * then checks them while it listens): a server answers sooner; `createApp` keeps them in start-up.
   */
  deferExampleChecks?: boolean
}

/** Loads the description and the fixtures and compiles every operation. Throws `StartupError`. */
export async function createEngine(input: MockOptions, logger: Logger, setup: EngineSetup): Promise<Engine> {
  const { files } = setup.platform
  const options = resolveOptions(input, setup.platform)
  const spec = await loadSpec(options.spec, {
    files,
    allowRefOutside: options.allowRefOutside,
    swagger2: setup.platform.swagger2,
  })
  const { document } = spec
  for (const warning of spec.warnings ?? []) logger.warn(`${spec.path}: ${warning}`)
  // Prism reads json-schema-faker options from the description; its 0.5 option names are not this 0.6's, so they are told, not guessed at.
  if (document['x-json-schema-faker'] !== undefined)
    logger.warn(
      `${spec.path}: x-json-schema-faker is not read: bodies are static unless --dynamic, and generation is set with --json-schema-faker-fillProperties and --seed.`,
    )
  // RE2 runs the description's patterns: at start-up on Node, and in a browser only if there are some (#33).
  const patterns = patternsIn(document)
  if (patterns.length || !setup.platform.loadsOnDemand) await loadLinearEngine()
  for (const pattern of findUnusablePatterns(patterns))
    logger.warn(
      `${spec.path}: the pattern at ${pattern} is not a regular expression any engine here reads; it is not enforced.`,
    )
  markExactIntegers(document)
  // readOnly / writeOnly: requests are read with one view of the description, responses made and checked with the other.
  const views = deriveReadWriteViews(document)
  const ajv = addDescription(createAjv(), { ...spec, document: views.response })
  const requestAjv =
    views.request === views.response ? ajv : addDescription(createAjv(), { ...spec, document: views.request })
  const coercingAjv = addDescription(createAjv({ coerceTypes: true }), { ...spec, document: views.request })
  const descriptions = inDescription(spec.path, '', () => describeOperations(spec))
  const sharedIds = separateSharedIds(descriptions)
  if (sharedIds.length) logger.warn(`${spec.path}: ${describeSharedIds(sharedIds)}`)
  const warned = new Set<string>()
  const warnOnce = (key: string, message: string) => {
    if (warned.has(key)) return
    warned.add(key)
    logger.warn(`${spec.path}: ${message}`)
  }
  if (descriptions.some((d) => d.responses.some((r) => r.content.some((c) => kindOf(c.mediaType) === 'xml'))))
    await loadXmlSupport()
  const leftovers: string[] = []
  const fixtures = await loadFixtures(options.fixtures, files, options.fixturesRequired, (file) => leftovers.push(file))
  if (leftovers.length)
    logger.warn(
      `passed over ${leftovers.length} editor backup or temporary file(s) among the fixtures: ${leftovers.slice(0, 5).join(', ')}${leftovers.length > 5 ? ', …' : ''}`,
    )
  checkFixtureFolders(fixtures, descriptions, options.fixtures, sharedIds)
  if (options.admin) checkAdminPrefixIsFree(descriptions, spec.path)
  readParameterOneOfAsAnyOf(views.request, descriptions)
  const deferredExamples: DeclaredResponse[] | undefined = setup.deferExampleChecks ? [] : undefined
  const stateful = options.stateful
    ? await compileStateful(descriptions, document, requestAjv, options.fixtures, files, logger)
    : undefined
  const operations = descriptions.map((description, index) =>
    inDescription(spec.path, `operation ${description.id}`, () =>
      compileOperation(description, index, stateful?.byOperation[index], {
        document: views.response,
        requestDocument: views.request,
        ajv,
        requestAjv,
        coercingAjv,
        fixtures,
        options,
        logger,
        warnOnce,
        deferredExamples,
        platform: setup.platform,
      }),
    ),
  )
  // Where rules' answers and webhooks' bodies are checked: as answers are, in the response view.
  const checking = { document: views.response, requestDocument: views.request, ajv, coercingAjv, logger }
  const rules: RuleBook = {
    targets: ruleTargetsOf(operations, descriptions, views.request),
    reading: { headers: checking, requestDocument: views.request },
  }
  const scenarios = indexScenarios([
    ...builtInScenarios(operations),
    ...(await loadScenarios(options.fixtures, files, rules)),
  ])
  if (!scenarios.has(options.scenario)) {
    throw startupErrors.startScenarioUnknown(options.scenario, [...scenarios.keys()])
  }
  const described = inDescription(spec.path, 'webhooks', () => describeWebhooks(spec))
  const events = { fixturesDir: options.fixtures, files, operations, stateful }
  const { webhooks, webhookBindings } = await loadWebhooks(described, checking, events)
  const budget = { bytes: options.generationBytes, ms: options.generationMs, cpuTime: setup.platform.cpuTime }
  const faker = createFaker(views.response, options.seed, budget, { fillProperties: options.fillProperties })
  // Generation is synchronous: loaded now unless the platform loads it on demand, and then still now for --dynamic.
  if (options.dynamic || !setup.platform.loadsOnDemand) await faker.load()
  // Told against this app's own budget, which loadSpec does not know. The walk that names the
  // schemas by pointer runs only for a description that has one (GitHub's took 130 ms).
  const budgetWarnings = faker.beyondBudget ? compileBudgetWarnings(views.response, budget) : []
  for (const warning of budgetWarnings) logger.warn(`${spec.path}: ${warning}`)
  const redaction = redactionOf(document.components?.securitySchemes)
  const errorSchema = nodeAt(document, '/components/schemas/Error')
  const validateError = errorSchema ? compileAt(ajv, '/components/schemas/Error') : undefined
  return {
    options,
    spec,
    operations,
    router: createRouter(operations, compileServerPrefixes(document.servers)),
    faker,
    errorContext: {
      document: views.response,
      logger,
      faker,
      sampler: createSampler(views.response, {
        fillProperties: options.fillProperties,
        budget,
        beyondBudget: faker.beyondBudget,
      }),
      dynamic: options.dynamic,
      validateError,
      unsatisfied: new Set(),
      budget,
      beyondBudget: budgetWarnings.length > 0,
      explain: explainer(spec, views.response),
      offThread: setup.platform.offThread?.(input),
      // Set only while a body made off the thread is rendered; here from the start, so the object's shape never changes.
      handed: undefined,
    },
    logger,
    scenarios,
    redaction,
    source: {
      text: await files.readText(spec.path),
      mediaType: /\.json$/i.test(spec.path) ? 'application/json' : 'application/yaml',
    },
    deferredExamples: deferredExamples ?? [],
    stateful,
    rules,
    webhooks,
    webhookBindings,
    upstream: await upstreamOf(setup.platform.network, options, operations, {
      descriptions,
      checking,
      files,
      redaction,
      sha256: setup.platform.crypto.sha256,
    }),
    platform: setup.platform,
  }
}

/**
 * Checks the deferred examples a slice of time at a time, between requests (each slice ≤ 10 ms), so
 * that their warnings come soon after the start line while the server answers. Stops with `signal`.
 */
export function settleDeferredExamples(engine: Engine, signal: AbortSignal): void {
  const pending = engine.deferredExamples
  let next = 0
  const slice = () => {
    if (signal.aborted) return
    const until = performance.now() + 10
    while (next < pending.length && performance.now() < until) settleExamples(pending[next++]!)
    if (next < pending.length) afterThisTurnInBackground(slice)
  }
  if (pending.length > 0) afterThisTurnInBackground(slice)
}

/** Start-up mistakes found while reading the description say which file (and operation) they are in. */
function inDescription<T>(path: string, where: string, compile: () => T): T {
  try {
    return compile()
  } catch (error) {
    if (!(error instanceof StartupError) || error.message.includes(path)) throw error
    throw startupErrors.inDescription(path, where, error)
  }
}

function checkAdminPrefixIsFree(descriptions: OperationDescription[], path: string): void {
  const clash = descriptions.find((d) => d.path === ADMIN_PREFIX || d.path.startsWith(`${ADMIN_PREFIX}/`))
  if (clash) {
    throw startupErrors.adminPath(path, clash.path, ADMIN_PREFIX)
  }
}

/** Verbose validators for mending generated bodies: their own Ajv, made when a first body needs mending. */
function explainer(spec: SpecDocument, responseView: Record<string, any>): (schemaPointer: string) => ValidateFunction {
  let verbose: Ajv | undefined
  return (schemaPointer) =>
    compileAt(
      (verbose ??= addDescription(createAjv({ verbose: true }), { ...spec, document: responseView })),
      schemaPointer,
    )
}

/** One warning for every operationId several operations share, each with its operations (#36). */
function describeSharedIds(shared: readonly SharedOperationId[]): string {
  const listed = shared.map(
    ({ id, operations }) => `${id} (${operations.map((o) => `${o.method} ${o.path}`).join(', ')})`,
  )
  const [, other] = shared[0]!.operations
  return (
    `${shared.length} operationId(s) are shared by several operations: ${listed.join('; ')}. ` +
    `The first operation keeps the id; the others are named by method and path (${other!.method} ${other!.path}) in rules, stubs, ` +
    `the journal and coverage, and each one's fixtures folder is its method and path (${other!.fixtureKey}).`
  )
}

function checkFixtureFolders(
  fixtures: FixtureSet,
  descriptions: OperationDescription[],
  dir: string,
  shared: readonly SharedOperationId[],
): void {
  const keys = new Set<string>()
  for (const { fixtureKey } of descriptions) keys.add(fixtureKey)
  for (const folder of fixtures.keys()) {
    const ambiguous = shared.find(({ id }) => id === folder)
    if (ambiguous) throw startupErrors.fixtureAmbiguousOperation(`${dir}/${folder}`, folder, ambiguous.operations)
    if (!keys.has(folder)) {
      throw startupErrors.fixtureUnknownOperation(`${dir}/${folder}`, [...keys])
    }
  }
}
