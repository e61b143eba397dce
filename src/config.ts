import { existsSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startupErrors } from './errors.js'
import { DEFAULT_JOURNAL_BYTES } from './journal/journal.js'
import { GENERATION_BUDGET } from './responses/generation-budget.js'
import type { LogFormat } from './log.js'

/** The package root: where the embedded `openapi.yaml` and `fixtures/` live (one level above `src/` or `dist/`). */
const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..')

/** The reserved prefix of the admin API, as WireMock reserves `/__admin`. Described in `admin-openapi.yaml`. */
export const ADMIN_PREFIX = '/__mock'

/** How requests are validated (see `MockOptions.validate`). */
export type ValidationMode = 'strict' | 'report' | 'off'

/** Everything the mock can be told. CLI flags and environment variables map onto these fields one to one. */
export interface MockOptions {
  /**
   * Path to the OpenAPI 3.0 / 3.1 description (YAML or JSON).
   * @default the embedded Plant Store `openapi.yaml`
   */
  spec?: string
  /**
   * Folder of fixtures (`<operationId>/<status>[.<name>].json`). A missing folder is an error
   * unless it is the default one.
   * @default the embedded `fixtures/` when `spec` is the embedded description, else `fixtures/` beside the spec
   */
  fixtures?: string
  /** @default 4010 (`PORT`); 0 picks a free port */
  port?: number
  /** @default '127.0.0.1' (`HOST`) */
  host?: string
  /** Generate every body with json-schema-faker, even where a fixture or example exists. @default false */
  dynamic?: boolean
  /** Seed for generated bodies: the same seed gives the same sequence of bodies. @default a random seed */
  seed?: number
  /** Accepted bearer tokens / API keys. Empty: any non-empty credential is accepted. @default [] */
  tokens?: string[]
  /** Largest request body in bytes; larger ones get 413. @default 1048576 (1 MiB) */
  maxBodyBytes?: number
  /** Log stacks of unexpected errors. @default false */
  debug?: boolean
  /** Scenario active at start (`MOCK_SCENARIO`): built in `default`, `error`, `unauthorized`, `dynamic`, or one of `fixtures/scenarios.yaml`. @default 'default' */
  scenario?: string
  /** Latency added to every answer: milliseconds, or a range `'MIN-MAX'` drawn uniformly. @default 0 */
  delay?: number | string
  /** Deepest nesting of arrays and objects a JSON request body may have; deeper gets 400 before parsing (`--max-depth`). @default 256 */
  maxDepth?: number
  /**
   * What a request that breaks the description gets (`--validate`): `strict` answers its violations
   * (400 or 422); `report` answers as if it were valid and reports them (`X-Mock-Violations`, the log
   * line, the journal); `off` looks for none (security still applies). `Prefer: validate=` sets it
   * for one request. @default 'strict'
   */
  validate?: ValidationMode
  /** Requests kept in the journal; the oldest are dropped. @default 1000 */
  journalSize?: number
  /** Bytes the journal keeps at most (body copies, headers...); the oldest are dropped (`--journal-bytes`). @default 64 MiB */
  journalBytes?: number
  /**
   * Largest generated body, serialised, in bytes (`--generation-bytes`). A schema whose string or
   * list alone needs more is warned about at start-up; a response whose generated body is larger is
   * answered 500 naming its schema. @default 1048576 (1 MiB)
   */
  generationBytes?: number
  /**
   * Longest CPU time generating one body may take, mending included, in milliseconds (`--generation-ms`).
   * Generation is stopped there and the response answered 500 naming its schema. @default 5000
   */
  generationMs?: number
  /**
   * Generated bodies carry every optional property (true), or only the required ones (false), at
   * every depth (`--json-schema-faker-fillProperties=false`). @default true
   */
  fillProperties?: boolean
  /**
   * Serve none of the description's examples, as Prism's `--ignoreExamples`: a response that has one
   * gets a generated body (seeded by `seed`) instead. Fixtures are still served. @default false
   */
  ignoreExamples?: boolean
  /** Serve the admin API under `/__mock`. @default true */
  admin?: boolean
  /** Bearer token the admin API requires (all routes but `/__mock/health`). @default none: open */
  adminToken?: string
  /** Answer CORS preflights and reflect the Origin. @default true */
  cors?: boolean
  /** Request lines as readable text, or one JSON object per line (`--log-format`). @default 'text' */
  logFormat?: LogFormat
  /** No request lines; the start line, warnings and errors are still printed (`--quiet`). @default false */
  quiet?: boolean
  /**
   * Reload the description, fixtures and scenarios when their files change (`startMockServer` and
   * the CLI only). A broken edit keeps the last good version serving. @default false
   */
  watch?: boolean
  /**
   * Folders outside the description's own folder tree that its `$ref`s may read (`--allow-ref-outside`).
   * A description may reference only files in its own folder tree, so that it cannot read any file
   * of the machine (#12). @default []
   */
  allowRefOutside?: string[]
  /**
   * Host names besides loopback ones that may reach the admin API of a mock on loopback, and whose
   * pages may change its state (`--allowed-hosts`). @default []
   */
  allowedHosts?: string[]
  /** validate every response before it is sent; a violation answers 500 (Prism's --errors) @default false */
  errors?: boolean
}

export interface Delay {
  min: number
  max: number
}

export type ResolvedOptions = Required<Omit<MockOptions, 'delay' | 'adminToken'>> & {
  fixturesRequired: boolean
  delay: Delay
  adminToken: string | undefined
}

export const defaults = {
  spec: resolve(packageRoot, 'openapi.yaml'),
  fixtures: resolve(packageRoot, 'fixtures'),
  port: 4010,
  host: '127.0.0.1',
  maxBodyBytes: 1024 * 1024,
} as const

/** Fills in defaults and checks every option once, so that nothing downstream has to. */
export function resolveOptions(options: MockOptions = {}): ResolvedOptions {
  const {
    spec = defaults.spec,
    port = defaults.port,
    host = defaults.host,
    dynamic = false,
    seed = Math.floor(Math.random() * 2 ** 31),
    tokens = [],
    maxBodyBytes = defaults.maxBodyBytes,
    debug = false,
    scenario = 'default',
    delay = 0,
    journalSize = 1000,
    maxDepth = 256,
    validate = 'strict',
    journalBytes = DEFAULT_JOURNAL_BYTES,
    generationBytes = GENERATION_BUDGET.bytes,
    generationMs = GENERATION_BUDGET.ms,
    fillProperties = true,
    ignoreExamples = false,
    admin = true,
    adminToken,
    cors = true,
    logFormat = 'text',
    quiet = false,
    watch = false,
    allowRefOutside = [],
    allowedHosts = [],
    errors = false,
  } = options
  const specPath = resolve(spec)
  const fixtures = options.fixtures ? resolve(options.fixtures) : defaultFixtures(specPath)

  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw startupErrors.optionBadPort(port)
  }
  if (!Number.isSafeInteger(seed)) throw startupErrors.optionBadSeed(seed)
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1) {
    throw startupErrors.optionBadMaxBody(maxBodyBytes)
  }
  if (tokens.some((token) => token.length === 0 || /\s/.test(token))) {
    throw startupErrors.optionBadToken()
  }
  if (!Number.isSafeInteger(journalSize) || journalSize < 0) {
    throw startupErrors.optionBadJournalSize(journalSize)
  }
  if (!Number.isSafeInteger(maxDepth) || maxDepth < 1 || maxDepth > 10_000) {
    throw startupErrors.optionBadMaxDepth(maxDepth)
  }
  if (!Number.isSafeInteger(journalBytes) || journalBytes < 1) {
    throw startupErrors.optionBadJournalBytes(journalBytes)
  }
  if (!Number.isSafeInteger(generationBytes) || generationBytes < 1) {
    throw startupErrors.optionBadGenerationBytes(generationBytes)
  }
  if (!Number.isSafeInteger(generationMs) || generationMs < 1) {
    throw startupErrors.optionBadGenerationMs(generationMs)
  }
  if (adminToken !== undefined && (adminToken.length === 0 || /\s/.test(adminToken))) {
    throw startupErrors.optionBadAdminToken()
  }
  return {
    spec: specPath,
    fixtures,
    fixturesRequired: options.fixtures !== undefined,
    port,
    host,
    dynamic,
    seed,
    tokens,
    maxBodyBytes,
    debug,
    scenario,
    delay: parseDelay(delay),
    journalSize,
    journalBytes,
    generationBytes,
    generationMs,
    fillProperties,
    ignoreExamples,
    maxDepth,
    admin,
    adminToken,
    cors,
    validate: checkValidationMode(validate),
    logFormat: checkLogFormat(logFormat),
    quiet,
    watch,
    allowRefOutside: allowRefOutside.map((folder) => resolve(folder)),
    allowedHosts: allowedHosts.map((name) => name.trim().toLowerCase()).filter(Boolean),
    errors,
  }
}

/** `--validate` and `validate` take these three words only. */
export function checkValidationMode(mode: string): ValidationMode {
  if (mode !== 'strict' && mode !== 'report' && mode !== 'off') throw startupErrors.optionBadValidate(mode)
  return mode
}

/** `--log-format` and `logFormat` take these two words only. */
export function checkLogFormat(format: string): LogFormat {
  if (format !== 'text' && format !== 'json') throw startupErrors.optionBadLogFormat(format)
  return format
}

/** Longest delay accepted anywhere (option, scenario rule, `Prefer: delay=`): ten minutes. */
export const MAX_DELAY_MS = 600_000

/** `250` or `'100-500'` → `{ min, max }` in milliseconds. */
export function parseDelay(value: number | string): Delay {
  const text = String(value).trim()
  const match = /^(\d+)(?:\s*-\s*(\d+))?$/.exec(text)
  const min = Number(match?.[1])
  const max = match?.[2] === undefined ? min : Number(match[2])
  if (!match || max < min || max > MAX_DELAY_MS) {
    throw startupErrors.optionBadDelay(text, MAX_DELAY_MS)
  }
  return { min, max }
}

/** The embedded description comes with the embedded fixtures; any other looks for `fixtures/` beside it. */
function defaultFixtures(specPath: string): string {
  if (specPath === defaults.spec) return defaults.fixtures
  const besideSpec = resolve(dirname(specPath), 'fixtures')
  return existsSync(besideSpec) ? besideSpec : ''
}

/** Reads sizes such as `1048576`, `512kb`, `1mb`, `2MiB`. */
export function parseByteSize(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(b|kb|kib|k|mb|mib|m|gb|gib|g)?$/i.exec(text.trim())
  if (!match) throw startupErrors.optionBadSize(text)
  const units: Record<string, number> = {
    b: 1,
    k: 1024,
    kb: 1024,
    kib: 1024,
    m: 1024 ** 2,
    mb: 1024 ** 2,
    mib: 1024 ** 2,
    g: 1024 ** 3,
    gb: 1024 ** 3,
    gib: 1024 ** 3,
  }
  return Math.floor(Number(match[1]) * (units[(match[2] ?? 'b').toLowerCase()] ?? 1))
}
