#!/usr/bin/env node
import { readFileSync } from 'node:fs'
import { type MockServer, StartupError, startMockServer } from './index.js'
import { CLI_HELP } from './command-line/cli-help.js'
import { type ConsoleLogger, type Logger, consoleLogger, createConsoleLogger } from './log.js'
import type { EnvironmentSetting } from './command-line/environment-reader.js'
import { parseCommandLine } from './command-line/parse-command-line.js'
import { filterByLevel } from './command-line/verbose-level.js'

function main(argv: string[]): void {
  let command: ReturnType<typeof parseCommandLine>
  try {
    command = parseCommandLine(argv)
  } catch (error) {
    return fail(consoleLogger, error)
  }
  if (command.action === 'help') return void process.stdout.write(CLI_HELP)
  if (command.action === 'version') return void process.stdout.write(`${readVersion()}\n`)
  const { options, verboseLevel, environment } = command
  const unfiltered = createConsoleLogger(options)
  const logger = verboseLevel ? filterByLevel(unfiltered, verboseLevel) : unfiltered
  startMockServer({ ...options, logger }).then(
    (server) => serveUntilSignalled(server, logger),
    // Printed whatever the level: `-v silent` still says why the mock did not start.
    (error) => fail(unfiltered, error, environment),
  )
}

function serveUntilSignalled(server: MockServer, logger: ConsoleLogger): void {
  let closing = false
  const stop = (signal: string) => {
    if (closing) process.exit(130) // a second signal: the user wants out now
    closing = true
    logger.info(`${signal}: finishing in-flight requests, then stopping`)
    server.close().then(
      () => {
        // Request lines wait for the next event-loop turn, which process.exit() would not give them.
        logger.flush()
        process.exit(0)
      },
      (error: unknown) => {
        logger.error(`could not stop cleanly: ${(error as Error)?.message ?? error}`)
        process.exit(1)
      },
    )
  }
  process.on('SIGINT', () => stop('SIGINT'))
  process.on('SIGTERM', () => stop('SIGTERM'))
  // Printed last: supervisors take this line as "ready", and a signal sent on it must find the handlers in place.
  logger.info(`${server.title} mock listening on ${server.url} (${server.operations.join(', ') || 'no operations'})`)
}

function fail(logger: Logger, error: unknown, environment: readonly EnvironmentSetting[] = []): void {
  const known = error instanceof StartupError
  // The code goes last, in brackets, so that scripts can match it and the sentence reads first.
  logger.error(
    known
      ? `${namingTheEnvironment(error.message, environment)} [${error.code}]`
      : String((error as Error)?.stack ?? error),
  )
  process.exitCode = 1
}

/**
 * A start-up error quotes the value it refuses; when that value came from an environment variable,
 * the message says which, since the user never wrote the flag it would otherwise suggest.
 */
function namingTheEnvironment(message: string, environment: readonly EnvironmentSetting[]): string {
  const sources = environment.filter((setting) => setting.mentions.some((mention) => message.includes(mention)))
  if (sources.length === 0) return message
  return `${message} ${sources.map((s) => `That value comes from the environment variable ${s.variable}.`).join(' ')}`
}

function readVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
  return pkg.version
}

main(process.argv.slice(2))
