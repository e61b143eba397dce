import { resolve } from 'node:path'
import { type ParseArgsConfig, parseArgs } from 'node:util'
import { closestWord } from './closest-word.js'
import { type MockOptions, type ValidationMode, parseByteSize } from './config.js'
import { StartupError, type StartupErrorCode } from './errors.js'
import { VERBOSE_LEVELS, type VerboseLevel, isVerboseLevel, optionsForLevel } from './verbose-level.js'

/** What the command line asks for. `serve` carries everything the CLI needs to start and to explain a failure. */
export type CommandLine =
  | { action: 'help' }
  | { action: 'version' }
  | { action: 'serve'; options: MockOptions; verboseLevel?: VerboseLevel; environment: EnvironmentSetting[] }

/**
 * An environment variable whose value the mock took (no flag overrode it). A start-up error that
 * quotes one of its `mentions` is about that value, and the CLI then names the variable: the user
 * wrote `PORT=4010`, not `--port 4010`.
 */
export interface EnvironmentSetting {
  variable: string
  value: string
  mentions: string[]
}

export type CommandLineErrorCode = Extract<StartupErrorCode, `cli_${string}`>

/** A command line the mock cannot follow; `code` is stable, the message says what to write instead. */
export class CommandLineError extends StartupError {
  constructor(
    override readonly code: CommandLineErrorCode,
    message: string,
  ) {
    super(code, message)
    this.name = 'CommandLineError'
  }
}

/**
 * Every flag, ours and Prism's (`prism mock --help`, 5.14), in the spellings Prism's parser takes
 * (`--verboseLevel` and `--verbose-level`). The first spelling of each is the one messages use.
 */
const FLAGS = {
  spec: { type: 'string' },
  fixtures: { type: 'string' },
  port: { type: 'string', short: 'p' },
  host: { type: 'string', short: 'h' },
  dynamic: { type: 'boolean', short: 'd' },
  seed: { type: 'string' },
  token: { type: 'string', multiple: true },
  'max-body': { type: 'string' },
  scenario: { type: 'string' },
  delay: { type: 'string' },
  'journal-size': { type: 'string' },
  'journal-bytes': { type: 'string' },
  'generation-bytes': { type: 'string' },
  'generation-ms': { type: 'string' },
  'max-depth': { type: 'string' },
  'admin-token': { type: 'string' },
  admin: { type: 'boolean' },
  cors: { type: 'boolean' },
  errors: { type: 'boolean' },
  validate: { type: 'string' },
  'json-schema-faker-fillProperties': { type: 'boolean' },
  'json-schema-faker-fill-properties': { type: 'boolean' },
  ignoreExamples: { type: 'boolean' },
  'ignore-examples': { type: 'boolean' },
  multiprocess: { type: 'boolean', short: 'm' },
  verboseLevel: { type: 'string', short: 'v' },
  'verbose-level': { type: 'string' },
  debug: { type: 'boolean' },
  'log-format': { type: 'string' },
  quiet: { type: 'boolean' },
  watch: { type: 'boolean' },
  'allow-ref-outside': { type: 'string', multiple: true },
  'allowed-hosts': { type: 'string', multiple: true },
  help: { type: 'boolean' },
  version: { type: 'boolean' },
} as const satisfies NonNullable<ParseArgsConfig['options']>

type FlagName = keyof typeof FLAGS
const FLAG_NAMES = Object.keys(FLAGS) as FlagName[]
/** The second spellings of Prism's flags: taken, never suggested (closestWord ignores case and dashes anyway). */
const SECOND_SPELLINGS = new Set<string>(['json-schema-faker-fill-properties', 'ignore-examples', 'verbose-level'])
const SUGGESTED = FLAG_NAMES.filter((name) => !SECOND_SPELLINGS.has(name))
const BOOLEAN_FLAGS = new Set(FLAG_NAMES.filter((name) => FLAGS[name].type === 'boolean'))
const BY_SHORT = new Map(
  FLAG_NAMES.flatMap((name) =>
    'short' in FLAGS[name] ? [[(FLAGS[name] as { short: string }).short, name] as const] : [],
  ),
)

/**
 * Reads the command line and the environment into options: the description as an argument (after
 * Prism's optional `mock` word) or `--spec`, our flags and Prism's; flags win over variables. Any
 * problem throws a `CommandLineError` naming the flag or the variable as the user wrote it.
 */
export function parseCommandLine(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): CommandLine {
  // Before the flags are read: Prism's proxy flags (--upstream-proxy) would otherwise be called unknown.
  if (argv[0] === 'proxy') throw proxyNotBuilt()
  const { values, positionals } = readArguments(argv)
  if (values.help) return { action: 'help' }
  if (values.version) return { action: 'version' }
  const settings = new EnvironmentReader(env)
  const level = readVerboseLevel(values.verboseLevel ?? values['verbose-level'])
  const byLevel = level ? optionsForLevel(level) : {}
  const spec = readDescription(positionals, values.spec) ?? settings.path('MOCK_SPEC')
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
    allowRefOutside: values['allow-ref-outside'],
    allowedHosts: values['allowed-hosts']?.flatMap((list) => list.split(',')),
  }
  // `--multiprocess` is taken and does nothing: one process answers, and it keeps up (README, Performance).
  return { action: 'serve', options, verboseLevel: level, environment: settings.used }
}

/** node:util's parseArgs over Prism-style booleans, its errors reworded to name the flag and what was meant. */
function readArguments(argv: readonly string[]) {
  try {
    return parseArgs({
      args: withBooleanValues(argv),
      options: FLAGS,
      strict: true,
      allowPositionals: true,
      allowNegative: true,
    })
  } catch (error) {
    throw rewordParseError(error as NodeJS.ErrnoException)
  }
}

/**
 * Prism's parser (yargs) takes a boolean's value as `--cors=false` or `--cors false`; parseArgs
 * knows only `--cors` and `--no-cors`. Both spellings become the latter, so that `false` is not
 * read as a description. A value other than true or false is refused here, naming the flag.
 */
function withBooleanValues(argv: readonly string[]): string[] {
  const args: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--') return [...args, ...argv.slice(i)]
    const inline = /^--([^=]+)=(.*)$/.exec(arg)
    const name = inline ? inline[1]! : flagNameOf(arg)
    if (name === undefined || !BOOLEAN_FLAGS.has(name as FlagName)) {
      args.push(arg)
      // A string flag's value is never a flag, even when it reads `true`.
      if (name !== undefined && !inline && FLAGS[name as FlagName] && i + 1 < argv.length) args.push(argv[++i]!)
      continue
    }
    const value = inline ? inline[2]! : argv[i + 1]
    if (inline && value !== 'true' && value !== 'false') {
      throw new CommandLineError('cli_bad_value', `--${name} takes true or false (or no value), got "${value}".`)
    }
    if (value === 'true' || value === 'false') {
      if (!inline) i++
      args.push(value === 'true' ? `--${name}` : `--no-${name}`)
    } else args.push(arg)
  }
  return args
}

/** `--port` → `port`, `-p` → `port`; `undefined` for what is not a known flag's spelling. */
function flagNameOf(arg: string): string | undefined {
  if (arg.startsWith('--')) return arg.slice(2) in FLAGS ? arg.slice(2) : undefined
  if (/^-[a-zA-Z]$/.test(arg)) return BY_SHORT.get(arg.slice(1))
  return undefined
}

function rewordParseError(error: NodeJS.ErrnoException): Error {
  const quoted = /'(-[^']*)'/.exec(error.message)?.[1]
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && quoted) return unknownFlag(quoted)
  const flag = /(--[\w-]+)/.exec(error.message)?.[1] ?? quoted
  if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && flag && /argument missing/.test(error.message)) {
    return new CommandLineError('cli_missing_value', `${flag} needs a value. Run with --help to see the options.`)
  }
  if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && flag && /ambiguous/.test(error.message)) {
    return new CommandLineError(
      'cli_missing_value',
      `${flag} needs a value, and the next word starts with "-"; write ${flag}=<value> if that is the value.`,
    )
  }
  if (error.code?.startsWith('ERR_PARSE_ARGS'))
    return new CommandLineError('cli_bad_value', `${error.message} Run with --help to see the options.`)
  return error
}

/** "Unknown option --prot. Did you mean --port?", from every spelling of every flag, Prism's included. */
function unknownFlag(written: string): CommandLineError {
  const name = written.replace(/^-+/, '').replace(/=.*$/, '')
  const negated = name.startsWith('no-')
    ? closestWord(
        name.slice(3),
        SUGGESTED.filter((flag) => BOOLEAN_FLAGS.has(flag)),
      )
    : undefined
  const guess = negated ? `no-${negated}` : written.startsWith('--') ? closestWord(name, SUGGESTED) : undefined
  const hint = guess ? ` Did you mean --${guess}?` : ''
  return new CommandLineError(
    'cli_unknown_flag',
    `Unknown option ${written}.${hint} Run with --help to see the options.`,
  )
}

/**
 * The description: Prism's `mock <document>`, or the document alone, or `--spec`. Prism's `proxy`
 * command and a URL are refused with what to do instead.
 */
function readDescription(positionals: readonly string[], specFlag: string | undefined): string | undefined {
  if (positionals[0] === 'proxy') throw proxyNotBuilt()
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
  const chosen = written ?? specFlag
  if (chosen !== undefined && /^https?:\/\//i.test(chosen)) {
    throw new CommandLineError(
      'cli_remote_description',
      `The mock reads its description from a file, and never downloads one: save ${chosen} first (e.g. curl -o api.yaml '${chosen}') and give the file.`,
    )
  }
  return chosen
}

function proxyNotBuilt(): CommandLineError {
  return new CommandLineError(
    'cli_proxy_not_built',
    'Proxy mode (Prism\'s "proxy" command) is not built yet: the mock answers from the description only. Run "plant-store-mock mock <description>" to mock the API, and call the real API itself to reach it.',
  )
}

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

/**
 * Reads the variables the CLI takes (an empty one counts as unset) and remembers those it used,
 * so that an error about their values can name them.
 */
class EnvironmentReader {
  readonly used: EnvironmentSetting[] = []

  constructor(private readonly env: NodeJS.ProcessEnv) {}

  /** `parse` receives the source to name in its messages: "The environment variable PORT". */
  read<T>(
    variable: string,
    parse: (source: string, text: string) => T,
    mentions: (text: string) => string[] = () => [],
  ): T | undefined {
    const value = this.env[variable]
    if (!value) return undefined
    const parsed = parse(`The environment variable ${variable}`, value)
    this.used.push({ variable, value, mentions: mentions(value) })
    return parsed
  }

  /** A file or folder: errors quote it resolved. */
  path(variable: string): string | undefined {
    return this.read(
      variable,
      (_, path) => path,
      (path) => [resolve(path)],
    )
  }
}
