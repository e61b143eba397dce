import { writeFileSync } from 'node:fs'
import { StartupError } from '../errors/index.js'
import type { Logger } from '../common/log.js'
import type { MockOptions } from '../common/config.js'
import type { ConsoleLogger } from '../common/log.js'
import type { EnvironmentSetting } from './environment-reader.js'

/**
 * The line supervisors and scripts take as "ready": printed once the mock answers (with `--workers`,
 * once every worker does). It lists the operations up to `LISTED_OPERATIONS` of them, or all of them
 * under `--verboseLevel debug`; past that it counts them and says where they are listed (GitHub's
 * description made a line of 63,677 characters). In proxy mode it names the upstream.
 */
export function startLine(
  { title, url, operations }: { title: string; url: string; operations: string[] },
  { debug, proxy: upstream }: Pick<MockOptions, 'debug' | 'proxy'> = {},
): string {
  const listed =
    operations.length <= LISTED_OPERATIONS || debug
      ? operations.join(', ') || 'no operations'
      : `${operations.length.toLocaleString('en-US')} operations: ${url}/ lists them, and --verboseLevel debug here`
  const proxying = upstream ? `, proxying to ${withoutCredentials(upstream)}` : ''
  return `${title} mock listening on ${url}${proxying} (${listed})`
}

/**
 * Where the mock writes the URL it answers on once it is ready, when `MOCK_URL_FILE` names a file
 * (the Docker image sets it): its health check reads it, so that `--port`, `PORT` or port 0 all work
 * (#36 §12). A wildcard address (`0.0.0.0`, `::`) is written as loopback, where a probe inside reaches it.
 */
export function writeUrlFile(url: string, file = process.env.MOCK_URL_FILE): void {
  if (!file) return
  const reachable = url.replace('://0.0.0.0:', '://127.0.0.1:').replace('://[::]:', '://[::1]:')
  try {
    writeFileSync(file, `${reachable}\n`)
  } catch (error) {
    process.stderr.write(`[mock] cannot write MOCK_URL_FILE ${file}: ${(error as Error).message}\n`)
  }
}

/** Operations the start line names one by one. */
const LISTED_OPERATIONS = 10

/** An upstream URL as a log may show it: a user name and password in it are left out. */
function withoutCredentials(upstream: string): string {
  try {
    const url = new URL(upstream)
    url.username = ''
    url.password = ''
    return url.href
  } catch {
    return upstream
  }
}

/** Why the mock did not start, as one paragraph, the code last in brackets; sets exit code 1. */
export function reportFailure(logger: Logger, error: unknown, environment: readonly EnvironmentSetting[] = []): void {
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

/**
 * Stops a server (its in-flight requests finish first), writes the request lines still waiting, and
 * exits 0; exits 1 saying why when it cannot stop cleanly. The one way a mock process ends on a signal.
 */
export function closeThenExit(
  server: { close(): Promise<void> },
  logger: ConsoleLogger,
  /** Work after the last request, whose result is the exit code: the coverage report and thresholds (#29). */
  finish: () => Promise<number> = async () => 0,
): void {
  server
    .close()
    .then(finish)
    .then(
      (code) => {
        // Request lines wait for the next event-loop turn, which process.exit() would not give them.
        logger.flush()
        process.exit(code)
      },
      (error: unknown) => {
        logger.error(`could not stop cleanly: ${(error as Error)?.message ?? error}`)
        process.exit(1)
      },
    )
}
