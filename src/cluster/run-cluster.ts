import cluster from 'node:cluster'
import type { MockOptions } from '../common/config.js'
import type { EnvironmentSetting } from '../command-line/environment-reader.js'
import type { ConsoleLogger } from '../common/log.js'

/**
 * `--workers N` (N ≥ 2): the same command line runs as the primary, which forks the workers, and
 * in each worker. Loaded only then, so that one process (the default) never loads node:cluster.
 */
export async function runCluster(
  options: MockOptions,
  workers: number,
  logger: ConsoleLogger,
  unfiltered: ConsoleLogger,
  environment: readonly EnvironmentSetting[],
): Promise<void> {
  if (cluster.isPrimary) {
    const { runPrimary } = await import('./primary.js')
    return runPrimary(options, workers, logger, unfiltered, environment)
  }
  const { runWorker } = await import('./worker.js')
  return runWorker(options, logger)
}
