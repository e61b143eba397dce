import { resolve } from 'node:path'
import { closestWord } from '../internal/closest-word.js'
import { CommandLineError } from './command-line-error.js'
import { readArguments } from './command-line-flags.js'
import type { CoverageMinimum, MockOptions, ValidationMode } from '../common/config.js'
import { parseCoverageMinimum } from '../coverage/coverage-thresholds.js'
import { type EnvironmentSetting, EnvironmentReader } from './environment-reader.js'
import { parseByteSize } from '../common/option-values.js'
import { readWorkers } from './read-workers.js'
import { VERBOSE_LEVELS, type VerboseLevel, isVerboseLevel, optionsForLevel } from './verbose-level.js'

/** What the command line asks for. `serve` carries everything the CLI needs to start and to explain a failure. */
export type CommandLine =
  | { action: 'help' }
  | { action: 'version' }
  | {
      action: 'serve'
      options: MockOptions
      verboseLevel?: VerboseLevel
      environment: EnvironmentSetting[]
      /** Processes answering on the port (`--workers`); 1 is the single process, without node:cluster. */
      workers: number
    }
  | {
      /** `bundle <description> --out FILE`: the files start-up reads, checked, in one JSON file (#33). */
      action: 'bundle'
      options: MockOptions
      out: string
    }

/**
 * Reads the command line and the environment into options: the description as an argument (after
 * Prism's optional `mock` word) or `--spec`, our flags and Prism's; flags win over variables. Any
 * problem throws a `CommandLineError` naming the flag or the variable as the user wrote it.
 */
export function parseCommandLine(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): CommandLine {
  // Before the flags are read: Prism's proxy flags (--upstream-proxy) would otherwise be called unknown.
  const { values, positionals } = readArguments(argv)
  if (values.help) return { action: 'help' }
  if (values.version) return { action: 'version' }
  const settings = new EnvironmentReader(env)
  const level = readVerboseLevel(values.verboseLevel ?? values['verbose-level'])
  const byLevel = level ? optionsForLevel(level) : {}
  // Prism's `proxy <description> <upstream>`: the same as `<description> --proxy <upstream>`.
  const proxying = positionals[0] === 'proxy'
  const upstreamWord = proxying ? positionals[2] : undefined
  if (proxying && positionals.length > 3) throw tooManyWords(positionals.slice(1))
  const bundling = positionals[0] === 'bundle'
  const words = proxying ? positionals.slice(1, 2) : bundling ? positionals.slice(1) : positionals
  const spec = readDescription(words, values.spec) ?? settings.path('MOCK_SPEC')
  const port =
    values.port === undefined
      ? settings.read('PORT', readPort, (text) => [`Port ${text} on`, `:${text}`])
      : readPort('--port', values.port)
  const logFormat =
    values['log-format'] === undefined
      ? settings.read('MOCK_LOG_FORMAT', readLogFormat)
      : readLogFormat('--log-format', values['log-format'])
  const options: MockOptions = {
    spec,
    fixtures: values.fixtures ?? settings.path('MOCK_FIXTURES'),
    port,
    host:
      values.host ||
      settings.read(
        'HOST',
        (_, host) => host,
        (host) => [host],
      ),
    dynamic: values.dynamic,
    seed: values.seed === undefined ? undefined : seedOf(values.seed),
    tokens: values.token,
    maxBodyBytes: readOptional('--max-body', values['max-body'], readSize),
    debug: values.debug || byLevel.debug,
    scenario:
      values.scenario ??
      settings.read(
        'MOCK_SCENARIO',
        (_, name) => name,
        (name) => [`"${name}"`],
      ),
    delay: values.delay,
    journalSize: readOptional('--journal-size', values['journal-size'], wholeNumber),
    journalBytes: readOptional('--journal-bytes', values['journal-bytes'], readSize),
    coverageReport: values['coverage-report'] ?? settings.path('MOCK_COVERAGE_REPORT'),
    coverageMin: readOptional('--coverage-min', values['coverage-min'], readCoverageMin),
    generationBytes: readOptional('--generation-bytes', values['generation-bytes'], readSize),
    generationMs: readOptional('--generation-ms', values['generation-ms'], wholeNumber),
    fillProperties: values['json-schema-faker-fillProperties'] ?? values['json-schema-faker-fill-properties'],
    ignoreExamples: values.ignoreExamples ?? values['ignore-examples'],
    maxDepth: readOptional('--max-depth', values['max-depth'], wholeNumber),
    adminToken: values['admin-token'],
    admin: values.admin,
    cors: values.cors,
    errors: values.errors,
    validate: readOptional('--validate', values.validate, readValidationMode),
    logFormat,
    quiet: values.quiet || byLevel.quiet,
    watch: values.watch,
    stateful: values.stateful ?? settings.read('MOCK_STATEFUL', readTrueOrFalse, (text) => [text]),
    stateFile: values['state-file'] ?? settings.path('MOCK_STATE_FILE'),
    stateLimit: readOptional('--state-limit', values['state-limit'], wholeNumber),
    allowRefOutside: values['allow-ref-outside'],
    allowedHosts: values['allowed-hosts']?.flatMap((list) => list.split(',')),
    webhookUrl: values['webhook-url'],
    webhookSecret: values['webhook-secret'] ?? settings.read('MOCK_WEBHOOK_SECRET', (_, text) => text),
    webhookAllow: values['webhook-allow']?.flatMap((list) => list.split(',')),
    maxDeliveriesInFlight: readOptional('--max-deliveries-in-flight', values['max-deliveries-in-flight'], wholeNumber),
    webhookTimeoutMs: readOptional('--webhook-timeout', values['webhook-timeout'], wholeNumber),
    webhookRetries: readOptional('--webhook-retries', values['webhook-retries'], wholeNumber),
    proxy: values.proxy ?? upstreamWord ?? settings.read('MOCK_PROXY', (_, text) => text),
    proxyTimeoutMs: readOptional('--proxy-timeout', values['proxy-timeout'], readDuration),
    proxyConnectTimeoutMs: readOptional('--proxy-connect-timeout', values['proxy-connect-timeout'], readDuration),
    proxyInsecure: values['proxy-insecure'],
    record: values.record,
    recordOverwrite: values['record-overwrite'],
    proxyOnly: values['proxy-only']?.flatMap((list) => list.split(',')).map((name) => name.trim()),
    mockOnly: values['mock-only']?.flatMap((list) => list.split(',')).map((name) => name.trim()),
    proxyFallback: values.fallback,
    store:
      values.store ??
      settings.read(
        'MOCK_STORE',
        (_, text) => text,
        (text) => [`"${text}"`],
      ),
    storePrefix: values['store-prefix'],
    sessionTtlMs: readOptional('--session-ttl', values['session-ttl'], readDuration),
  }
  if (bundling || values.out !== undefined) return { action: 'bundle', options, out: readOut(bundling, values.out) }
  // `--multiprocess` is taken and does nothing: `--workers` says how many processes answer.
  const workers =
    values.workers === undefined ? settings.read('MOCK_WORKERS', readWorkers) : readWorkers('--workers', values.workers)
  return { action: 'serve', options, verboseLevel: level, environment: settings.used, workers: workers ?? 1 }
}

/**
 * The description: Prism's `mock <document>`, or the document alone, or `--spec`. Prism's `proxy`
 * command and a URL are refused with what to do instead.
 */
function readDescription(positionals: readonly string[], specFlag: string | undefined): string | undefined {
  const words = positionals[0] === 'mock' ? positionals.slice(1) : positionals
  if (words.length > 1) {
    throw new CommandLineError(
      'cli_two_descriptions',
      `The mock serves one description, and got ${words.length}: ${words.map((w) => `"${w}"`).join(', ')}. Give one, as an argument or with --spec.`,
    )
  }
  const [written] = words
  if (written !== undefined && specFlag !== undefined && resolve(written) !== resolve(specFlag)) {
    throw new CommandLineError(
      'cli_two_descriptions',
      `Two descriptions: "${written}" as an argument and "${specFlag}" with --spec. Give one of them.`,
    )
  }
  // A URL is fetched at start (and asked again under --watch): `node/remote-description.ts`.
  return written ?? specFlag
}

/** Where `bundle` writes: `--out` is needed, and is for `bundle` only. */
function readOut(bundling: boolean, out: string | undefined): string {
  if (!bundling)
    throw new CommandLineError(
      'cli_bad_value',
      '--out is where `bundle` writes: `plant-store-mock bundle <description> --out <file>`.',
    )
  if (out === undefined)
    throw new CommandLineError(
      'cli_missing_value',
      '`bundle` writes one file: give it with --out <file> (e.g. public/mock.bundle.json).',
    )
  return out
}

function tooManyWords(words: readonly string[]): CommandLineError {
  return new CommandLineError(
    'cli_two_descriptions',
    `"proxy" takes a description and the upstream's URL, and got ${words.length} words: ${words.map((w) => `"${w}"`).join(', ')}.`,
  )
}

/** Milliseconds, or a duration with its unit: `30000`, `30s`, `500ms`, `2m`, `24h`. */
function readDuration(source: string, text: string): number {
  const match = /^(\d+)\s*(ms|s|m|h)?$/i.exec(text.trim())
  if (!match)
    throw new CommandLineError(
      'cli_bad_value',
      `${source} takes milliseconds or a duration such as 30s or 500ms, got "${text}".`,
    )
  const unit = (match[2] ?? 'ms').toLowerCase()
  return Number(match[1]) * (DURATION_UNITS[unit] ?? 1)
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }

function readVerboseLevel(text: string | undefined): VerboseLevel | undefined {
  if (text === undefined || isVerboseLevel(text)) return text
  const guess = closestWord(text, VERBOSE_LEVELS)
  throw new CommandLineError(
    'cli_bad_value',
    `--verboseLevel takes one of ${VERBOSE_LEVELS.join(', ')}, got "${text}".${guess ? ` Did you mean ${guess}?` : ''}`,
  )
}

/**
 * Prism takes any text as a seed. A whole number is used as it is; other text is hashed (32-bit
 * FNV-1a of its UTF-8 bytes) to one, so that the same text gives the same bodies, run after run.
 * @example seedOf('42') // 42
 */
export function seedOf(text: string): number {
  const trimmed = text.trim()
  if (/^\d+$/.test(trimmed) && Number.isSafeInteger(Number(trimmed))) return Number(trimmed)
  let hash = 0x811c9dc5
  for (const byte of new TextEncoder().encode(text)) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0
  return hash
}

function readPort(source: string, text: string): number {
  const port = wholeNumber(source, text)
  if (port > 65535)
    throw new CommandLineError('cli_bad_value', `${source} takes a port from 0 to 65535, got "${text}".`)
  return port
}

function readLogFormat(source: string, text: string): 'text' | 'json' {
  if (text !== 'text' && text !== 'json')
    throw new CommandLineError('cli_bad_value', `${source} takes "text" or "json", got "${text}".`)
  return text
}

function readValidationMode(source: string, text: string): ValidationMode {
  if (text === 'strict' || text === 'report' || text === 'off') return text
  const guess = closestWord(text, ['strict', 'report', 'off'])
  throw new CommandLineError(
    'cli_bad_value',
    `${source} takes strict, report or off, got "${text}".${guess ? ` Did you mean ${guess}?` : ''}`,
  )
}

/** `operations=100,statuses=80`; parseCoverageMinimum's complaint, led by the flag. */
function readCoverageMin(source: string, text: string): CoverageMinimum {
  try {
    return parseCoverageMinimum(text)
  } catch (error) {
    throw new CommandLineError('cli_bad_value', `${source} ${(error as Error).message}.`)
  }
}

function wholeNumber(source: string, text: string): number {
  if (!/^\d+$/.test(text.trim()))
    throw new CommandLineError('cli_bad_value', `${source} takes a whole number, got "${text}".`)
  return Number(text)
}

/** A size such as `512kb`; parseByteSize's complaint, led by the flag. */
function readSize(source: string, text: string): number {
  try {
    return parseByteSize(text)
  } catch (error) {
    throw new CommandLineError('cli_bad_value', `${source}: ${(error as Error).message}`)
  }
}

function readOptional<T>(
  flag: string,
  text: string | undefined,
  parse: (source: string, text: string) => T,
): T | undefined {
  return text === undefined ? undefined : parse(flag, text)
}

/** `MOCK_STATEFUL=true` or `false`, as a boolean flag takes them. */
function readTrueOrFalse(source: string, text: string): boolean {
  if (text === 'true' || text === '1') return true
  if (text === 'false' || text === '0') return false
  throw new CommandLineError('cli_bad_value', `${source} takes true or false, got "${text}".`)
}
