import type { Hono } from 'hono'
import { join } from 'pathe'
import { type CoverageReport, coverageReport } from '../coverage/coverage-report.js'
import { CoverageCounts } from '../coverage/coverage.js'
import { renderCoverageFiles } from '../coverage/render-reports.js'
import type { Engine } from '../engine/engine.js'
import type { RuntimeState } from '../engine/runtime-state.js'
import { errors } from '../errors/index.js'
import { nearPaths } from '../routing/near-paths.js'
import { askedSession } from './read-admin-input.js'

/**
 * Consumer coverage over the admin API (#29): `GET /__mock/coverage` (`?session=` or `X-Mock-Session`
 * for one session's), `POST /__mock/coverage/reset` (everything, or one session's) and
 * `POST /__mock/coverage/report` (the files of `--coverage-report`, written now).
 */
export function addCoverageRoutes(admin: Hono, engine: Engine, state: RuntimeState): void {
  admin.get('/coverage', (c) => c.json(coverageOf(engine, state, askedSession(c))))
  admin.post('/coverage/reset', (c) => {
    const session = askedSession(c)
    state.coverage.reset(session)
    return c.json(coverageOf(engine, state, session))
  })
  admin.post('/coverage/report', async (c) => {
    const written = await writeCoverageReport(engine, state)
    if (written === undefined) throw errors.coverageReportNotSet()
    return c.json({ written })
  })
}

/** The coverage report of every session, or of one (a session that sent nothing has exercised nothing). */
export function coverageOf(engine: Engine, state: RuntimeState, session?: string): CoverageReport {
  const counts = state.coverage.counts(session) ?? new CoverageCounts()
  return coverageReport(counts, engine.operations, {
    session,
    nearest: (path) => nearPaths(engine.router, path),
    rules: ruleLabels(engine, state),
    webhooks: [...engine.webhooks.keys()],
  })
}

/** The stubs, oldest first, then the rules of `fixtures/scenarios.yaml` (the built-in scenarios' are the mock's own). */
function ruleLabels(engine: Engine, state: RuntimeState): string[] {
  const labels = state.stubs.list().map((stub) => stub.rule.label)
  for (const scenario of engine.scenarios.values()) {
    if (scenario.builtIn) continue
    for (const rules of scenario.rules) for (const rule of rules ?? []) labels.push(rule.label)
  }
  return labels
}

/** The title the reports carry: the description's `info.title` and version. */
function titleOf(engine: Engine): string {
  const info = engine.spec.document.info as { title?: unknown; version?: unknown } | undefined
  const title = typeof info?.title === 'string' ? info.title : 'API'
  return typeof info?.version === 'string' ? `${title} ${info.version}` : title
}

/**
 * Writes `coverage.json`, `coverage.md`, `junit.xml` and `coverage.html` into `--coverage-report`'s
 * folder (made if missing), each replaced whole; the paths written, or `undefined` when no folder is set.
 */
export async function writeCoverageReport(
  engine: Engine,
  state: RuntimeState,
  report: CoverageReport = coverageOf(engine, state),
): Promise<string[] | undefined> {
  const folder = engine.options.coverageReport
  if (folder === undefined) return undefined
  const { files } = engine.platform
  await files.makeFolder(folder)
  const written: string[] = []
  for (const [name, text] of Object.entries(renderCoverageFiles(report, titleOf(engine)))) {
    const path = join(folder, name)
    await files.replaceText(path, text)
    written.push(path)
  }
  return written
}
