#!/usr/bin/env node
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { type MockOptions, type MockServer, StartupError, startMockServer } from './index.js'
import { checkLogFormat, parseByteSize } from './config.js'
import { type ConsoleLogger, type Logger, consoleLogger, createConsoleLogger } from './log.js'

const HELP = `Usage: plant-store-mock [options]

Serves an OpenAPI 3.0/3.1 description as a contract-checking mock (default: the embedded Plant Store).

Options:
  --spec <file>        description to serve (YAML or JSON)  [env MOCK_SPEC, default: embedded openapi.yaml]
  --fixtures <dir>     fixture folder (<operationId>/<status>[.<name>].json)      [env MOCK_FIXTURES,
                                                 default: embedded fixtures/, or fixtures/ beside --spec]
  -p, --port <n>       port; 0 picks a free one                  [env PORT, default 4010]
  -h, --host <addr>    address to listen on                      [env HOST, default 127.0.0.1]
  --dynamic            generate every body with json-schema-faker, ignoring fixtures and examples
  --seed <n>           seed for generated bodies (same seed, same sequence)   [default: random]
  --token <t>          accept only this bearer token / API key; repeat for more  [default: any]
  --max-body <size>    largest request body, e.g. 1048576, 512kb, 1mb          [default: 1mb]
  --max-depth <n>      deepest nesting of a JSON request body                 [default: 256]
  --scenario <name>    scenario at start: default, error, unauthorized, dynamic, or one of
                       fixtures/scenarios.yaml                   [env MOCK_SCENARIO, default: default]
  --delay <ms|min-max> latency added to every answer, e.g. 200 or 100-500     [default: 0]
  --journal-size <n>   requests kept in the journal (oldest dropped)          [default: 1000]
  --journal-bytes <s>  bytes the journal keeps, e.g. 64mb (oldest dropped)  [default: 64mb]
  --generation-bytes <s>  largest generated body, e.g. 2mb; a larger one is
                       answered 500 naming its schema          [default: 1mb]
  --generation-ms <ms> longest time generating one body may take; past it,
                       it is stopped and answered 500         [default: 5000]
  --admin-token <t>    require "Authorization: Bearer <t>" on /__mock/* (health excepted)
  --no-admin           do not serve the admin API under /__mock
  --no-cors, --cors=false   no CORS headers, no preflight answers           [default: on]
  --log-format <f>     request lines as text or json (one object per line)
                                                        [env MOCK_LOG_FORMAT, default: text]
  --quiet              no request lines (the start line, warnings and errors are still printed)
  --watch              reload the description, fixtures and scenarios when they change; a broken
                       edit keeps the last good version serving
  --allow-ref-outside <dir>  a folder outside the description's own that its $refs
                       may read; repeat for more       [default: its own folder only]
  --allowed-hosts <a,b> host names besides loopback ones that may use the admin
                       API of a mock on loopback           [default: none]
  --debug              log stacks of unexpected errors
  --help               show this help
  --version            show the version
`

function main(argv: string[]): void {
  let options: MockOptions
  try {
    const parsed = parseCommandLine(argv)
    if (parsed === 'help') return void process.stdout.write(HELP)
    if (parsed === 'version') return void process.stdout.write(`${readVersion()}\n`)
    options = parsed
  } catch (error) {
    return fail(consoleLogger, error)
  }
  const logger = createConsoleLogger(options)
  startMockServer({ ...options, logger }).then(
    (server) => serveUntilSignalled(server, logger),
    (error) => fail(logger, error),
  )
}

function parseCommandLine(argv: string[]): MockOptions | 'help' | 'version' {
  const { values } = parseArgs({
    // `--cors=false` is the documented spelling; parseArgs knows booleans only as --cors / --no-cors.
    args: argv.map((arg) => (/^--(cors|admin)=(true|false)$/.test(arg) ? arg.replace(/^--(\w+)=(\w+)$/, (_, name, value) => (value === 'true' ? `--${name}` : `--no-${name}`)) : arg)),
    strict: true,
    allowPositionals: false,
    allowNegative: true,
    options: {
      spec: { type: 'string' },
      fixtures: { type: 'string' },
      port: { type: 'string', short: 'p' },
      host: { type: 'string', short: 'h' },
      dynamic: { type: 'boolean' },
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
      debug: { type: 'boolean' },
      'log-format': { type: 'string' },
      quiet: { type: 'boolean' },
      watch: { type: 'boolean' },
      'allow-ref-outside': { type: 'string', multiple: true },
      'allowed-hosts': { type: 'string', multiple: true },
      help: { type: 'boolean' },
      version: { type: 'boolean' },
    },
  })
  if (values.help) return 'help'
  if (values.version) return 'version'
  const port = values.port ?? process.env.PORT
  const host = values.host ?? process.env.HOST
  const logFormat = values['log-format'] ?? (process.env.MOCK_LOG_FORMAT || undefined)
  return {
    spec: values.spec ?? (process.env.MOCK_SPEC || undefined),
    fixtures: values.fixtures ?? (process.env.MOCK_FIXTURES || undefined),
    port: port === undefined ? undefined : wholeNumber('--port', port),
    host: host || undefined,
    dynamic: values.dynamic,
    seed: values.seed === undefined ? undefined : wholeNumber('--seed', values.seed),
    tokens: values.token,
    maxBodyBytes: values['max-body'] === undefined ? undefined : parseByteSize(values['max-body']),
    debug: values.debug,
    scenario: values.scenario ?? (process.env.MOCK_SCENARIO || undefined),
    delay: values.delay,
    journalSize: values['journal-size'] === undefined ? undefined : wholeNumber('--journal-size', values['journal-size']),
    journalBytes: values['journal-bytes'] === undefined ? undefined : parseByteSize(values['journal-bytes']),
    generationBytes: values['generation-bytes'] === undefined ? undefined : parseByteSize(values['generation-bytes']),
    generationMs: values['generation-ms'] === undefined ? undefined : wholeNumber('--generation-ms', values['generation-ms']),
    maxDepth: values['max-depth'] === undefined ? undefined : wholeNumber('--max-depth', values['max-depth']),
    adminToken: values['admin-token'],
    admin: values.admin,
    cors: values.cors,
    logFormat: logFormat === undefined ? undefined : checkLogFormat(logFormat),
    quiet: values.quiet,
    watch: values.watch,
    allowRefOutside: values['allow-ref-outside'],
    allowedHosts: values['allowed-hosts']?.flatMap((list) => list.split(',')),
  }
}

function wholeNumber(flag: string, text: string): number {
  if (!/^\d+$/.test(text.trim())) throw new StartupError(`${flag} takes a whole number, got "${text}".`)
  return Number(text)
}

function serveUntilSignalled(server: MockServer, logger: ConsoleLogger): void {
  let closing = false
  const stop = (signal: string) => {
    if (closing) process.exit(130) // a second signal: the user wants out now
    closing = true
    logger.info(`${signal}: finishing in-flight requests, then stopping`)
    server.close().then(() => {
      // Request lines wait for the next event-loop turn, which process.exit() would not give them.
      logger.flush()
      process.exit(0)
    })
  }
  process.on('SIGINT', () => stop('SIGINT'))
  process.on('SIGTERM', () => stop('SIGTERM'))
  // Printed last: supervisors take this line as "ready", and a signal sent on it must find the handlers in place.
  logger.info(`${server.title} mock listening on ${server.url} (${server.operations.join(', ') || 'no operations'})`)
}

function fail(logger: Logger, error: unknown): void {
  const known = error instanceof StartupError || (error as NodeJS.ErrnoException)?.code?.startsWith('ERR_PARSE_ARGS')
  logger.error(known ? (error as Error).message : String((error as Error)?.stack ?? error))
  if ((error as NodeJS.ErrnoException)?.code?.startsWith('ERR_PARSE_ARGS')) logger.error('Run with --help to see the options.')
  process.exitCode = 1
}

function readVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
  return pkg.version
}

main(process.argv.slice(2))
