import type { MockOptions } from '../common/config.js'
import type { Logger } from '../common/log.js'
import type { CoverageReport } from '../coverage/coverage-report.js'
import { missedThresholds } from '../coverage/coverage-thresholds.js'

/** What the command line reads of the mock at exit. */
interface Covered {
  coverage(): CoverageReport
  writeCoverageReport(): Promise<string[]>
}

/**
 * At shutdown (#29): writes the `--coverage-report` files and checks `--coverage-min`; the exit code,
 * 1 when a threshold is missed (each named, with what was never exercised) or the files cannot be written.
 */
export async function finishCoverage(
  mock: Covered,
  { coverageReport, coverageMin }: Pick<MockOptions, 'coverageReport' | 'coverageMin'>,
  logger: Logger,
): Promise<number> {
  if (coverageReport === undefined && coverageMin === undefined) return 0
  let code = 0
  const report = mock.coverage()
  if (coverageReport !== undefined) {
    try {
      logger.info(`coverage report written: ${(await mock.writeCoverageReport()).join(', ')}`)
    } catch (error) {
      logger.error(`could not write the coverage report: ${(error as Error)?.message ?? error}`)
      code = 1
    }
  }
  if (coverageMin !== undefined) {
    const missed = missedThresholds(report, coverageMin)
    for (const miss of missed) logger.error(`coverage below --coverage-min: ${miss}`)
    if (missed.length) code = 1
    else logger.info('coverage meets --coverage-min')
  }
  return code
}
