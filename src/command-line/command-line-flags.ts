import { type ParseArgsConfig, parseArgs } from 'node:util'
import { closestWord } from '../internal/closest-word.js'
import { CommandLineError } from './command-line-error.js'

/**
 * Every flag, ours and Prism's (`prism mock --help`, 5.14), in the spellings Prism's parser takes
 * (`--verboseLevel` and `--verbose-level`). The first spelling of each is the one messages use.
 */
const FLAGS = {
  spec: { type: 'string' },
  fixtures: { type: 'string' },
  out: { type: 'string' },
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
  'coverage-report': { type: 'string' },
  'coverage-min': { type: 'string' },
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
  stateful: { type: 'boolean' },
  'state-file': { type: 'string' },
  'state-limit': { type: 'string' },
  'allow-ref-outside': { type: 'string', multiple: true },
  'allowed-hosts': { type: 'string', multiple: true },
  'webhook-url': { type: 'string' },
  proxy: { type: 'string' },
  'proxy-timeout': { type: 'string' },
  'proxy-connect-timeout': { type: 'string' },
  'proxy-insecure': { type: 'boolean' },
  record: { type: 'string' },
  'record-overwrite': { type: 'boolean' },
  'proxy-only': { type: 'string', multiple: true },
  'mock-only': { type: 'string', multiple: true },
  fallback: { type: 'boolean' },
  'webhook-secret': { type: 'string' },
  'webhook-allow': { type: 'string', multiple: true },
  'max-deliveries-in-flight': { type: 'string' },
  'webhook-timeout': { type: 'string' },
  'webhook-retries': { type: 'string' },
  workers: { type: 'string' },
  store: { type: 'string' },
  'store-prefix': { type: 'string' },
  'session-ttl': { type: 'string' },
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

/** node:util's parseArgs over Prism-style booleans, its errors reworded to name the flag and what was meant. */
export function readArguments(argv: readonly string[]) {
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
    // `-h` alone is a request for help in many tools; here, as in Prism, it is the host.
    if (/'-h, --host/.test(error.message))
      return new CommandLineError(
        'cli_missing_value',
        '-h is --host, as in Prism, and needs a host name (-h 0.0.0.0). For the help, run with --help.',
      )
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
