import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

const root = new URL('../', import.meta.url).pathname

/**
 * Builds dist/ once, before any test file runs, when it is missing or older than src/. Test files
 * that spawn the CLI, run the container entrypoint or pack the package all read dist/; building it
 * from inside them let one file rewrite it while another's child process was loading it.
 */
export default function buildOnce(): void {
  const built = join(root, 'dist/index.js')
  if (existsSync(built) && newestIn(join(root, 'src')) <= statSync(built).mtimeMs) return
  execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' })
}

function newestIn(dir: string): number {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    newest = Math.max(newest, entry.isDirectory() ? newestIn(path) : statSync(path).mtimeMs)
  }
  return newest
}
