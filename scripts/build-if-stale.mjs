#!/usr/bin/env node
/**
 * Runs `npm run build` only when dist/ is missing or older than what the build reads: `npm start`
 * (its `prestart`) and the test run call it. tsc takes about 8 s, starting the mock about half a
 * second: building on every start made each start sixteen times slower than it needed to be.
 * A fresh clone has no dist/, so its first `npm start` builds, as the README's quick start expects.
 *
 *   node scripts/build-if-stale.mjs [package folder]     (default: the folder above this script)
 *
 * Plain Node, no dependency: it runs before anything is built.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * What the build reads, so what can change dist/. `openapi.yaml` and `fixtures/` are not among
 * them: the mock reads them when it starts, so an edit there needs no build.
 */
const SOURCES = [/^src$/, /^tsconfig.*\.json$/, /^package(-lock)?\.json$/]
/** What the build writes and `npm start` runs; the older of the two dates the build. */
const OUTPUTS = ['dist/cli.js', 'dist/index.js']

/** Why dist/ must be built, or `undefined` when it is newer than every source. */
export function staleReason(root) {
  const missing = OUTPUTS.find((output) => !existsSync(join(root, output)))
  if (missing) return `${missing} does not exist`
  const built = Math.min(...OUTPUTS.map((output) => statSync(join(root, output)).mtimeMs))
  const sources = readdirSync(root).filter((name) => SOURCES.some((pattern) => pattern.test(name)))
  for (const source of sources) {
    const newer = newerThan(join(root, source), built)
    if (newer) return `${newer.slice(root.length + 1)} is newer than dist/`
  }
  return undefined
}

/** The first file at or under `path` modified after `time`. */
function newerThan(path, time) {
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs > time ? path : undefined
  for (const entry of readdirSync(path)) {
    const newer = newerThan(join(path, entry), time)
    if (newer) return newer
  }
  return undefined
}

/** `npm run build` with the npm that runs this script when there is one (`npm start`), else the one on PATH. */
function build(root) {
  const npm = process.env.npm_execpath
  const [command, args] =
    npm && /\.[cm]?js$/.test(npm) ? [process.execPath, [npm, 'run', 'build']] : ['npm', ['run', 'build']]
  execFileSync(command, args, { cwd: root, stdio: 'inherit' })
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..'))
  const reason = staleReason(root)
  if (reason === undefined) {
    console.log('dist/ is newer than its sources: no build needed.')
  } else {
    console.log(`Building: ${reason}.`)
    try {
      build(root)
    } catch {
      // npm has printed why; the exit code tells npm start not to go on.
      process.exit(1)
    }
  }
}
