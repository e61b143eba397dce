/**
 * The command line (`plant-store-mock`, `dist/cli.js`), loaded by `cli.ts` once V8's heap is capped (#34 §5).
 */
import { readFileSync } from 'node:fs'
import { type MockServer, startMockServer } from './index.js'
import { closeThenExit, reportFailure, startLine, writeUrlFile } from './command-line/report.js'
import { CLI_HELP } from './command-line/cli-help.js'
import type { ConsoleLogger } from './common/log.js'
import { consoleLogger, createConsoleLogger } from './node/console-logger.js'
import { parseCommandLine } from './command-line/parse-command-line.js'
import { filterByLevel } from './command-line/verbose-level.js'
import { finishCoverage } from './command-line/coverage-at-exit.js'
import { writeBundle } from './node/write-bundle.js'
import { growYoungGenerationToCap } from './command-line/small-heap.js'

function main(argv: string[]): void {
  fromUsersFolder()
  let command: ReturnType<typeof parseCommandLine>
  try {
    command = parseCommandLine(argv)
  } catch (error) {
    return reportFailure(consoleLogger, error)
  }
  if (command.action === 'help') return void process.stdout.write(CLI_HELP)
  if (command.action === 'version') return void process.stdout.write(`${readVersion()}\n`)
  if (command.action === 'bundle') {
    const logger = createConsoleLogger(command.options)
    writeBundle(command.options, command.out, logger).then(
      (wrote) => logger.info(wrote),
      (error) => reportFailure(logger, error),
    )
    return
  }
  const { options, verboseLevel, environment, workers } = command
  const unfiltered = createConsoleLogger(options)
  const logger = verboseLevel ? filterByLevel(unfiltered, verboseLevel) : unfiltered
  if (workers > 1) {
    // Loaded only here: one process, the default, never loads node:cluster.
    void import('./cluster/run-cluster.js').then(({ runCluster }) =>
      runCluster(options, workers, logger, unfiltered, environment),
    )
    return
  }
  startMockServer({ ...options, logger }).then(
    (server) => {
      growYoungGenerationToCap()
      writeUrlFile(server.url)
      serveUntilSignalled(server, logger, startLine(server, options), () => finishCoverage(server, options, logger))
    },
    // Printed whatever the level: `-v silent` still says why the mock did not start.
    (error) => reportFailure(unfiltered, error, environment),
  )
}

function serveUntilSignalled(
  server: MockServer,
  logger: ConsoleLogger,
  ready: string,
  finish: () => Promise<number>,
): void {
  let closing = false
  const stop = (signal: string) => {
    if (closing) process.exit(130) // a second signal: the user wants out now
    closing = true
    logger.info(`${signal}: finishing in-flight requests, then stopping`)
    closeThenExit(server, logger, finish)
  }
  process.on('SIGINT', () => stop('SIGINT'))
  process.on('SIGTERM', () => stop('SIGTERM'))
  // Printed last: supervisors take this line as "ready", and a signal sent on it must find the handlers in place.
  logger.info(ready)
}

/**
 * `npm start -- petstore.yaml` runs in the package's folder, wherever the user typed it; npm says
 * where that was (`INIT_CWD`), and relative paths (the description, `--fixtures`, `--state-file`...)
 * are read from there, as from any other command (#36 §7).
 */
function fromUsersFolder(): void {
  const usersFolder = process.env.INIT_CWD
  if (process.env.npm_lifecycle_event === 'start' && usersFolder && usersFolder !== process.cwd()) {
    try {
      process.chdir(usersFolder)
    } catch {
      // A folder that is gone: paths stay the package's.
    }
  }
}

function readVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
  return pkg.version
}

main(process.argv.slice(2))
