import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../', import.meta.url))

/**
 * Builds dist/ once, before any test file runs, when it is missing or older than its sources (the
 * same check as `npm start`'s, scripts/build-if-stale.mjs). Test files that spawn the CLI, run the
 * container entrypoint or pack the package all read dist/; building it from inside them let one
 * file rewrite it while another's child process was loading it.
 */
export default function buildOnce(): void {
  execFileSync(process.execPath, ['scripts/build-if-stale.mjs'], { cwd: root, stdio: 'inherit' })
}
