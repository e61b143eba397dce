#!/usr/bin/env node
/**
 * For the Docker image's build stage: leaves in package.json's devDependencies only what
 * `npm run build` needs, TypeScript, `@types/*` and the peer dependencies whose types the build reads
 * (msw, for `plant-store-mock/msw`), so that the install there skips the test and
 * benchmark tools (Prism, vitest, autocannon, fast-check: most of what `npm ci` downloaded). The
 * production dependencies stay, as the build reads their types; npm keeps the lockfile's versions
 * of everything that stays.
 *
 *   node keep-build-dependencies.mjs [package.json]     (default: ./package.json)
 *
 * Plain Node, no dependency: it runs before anything is installed.
 */
import { readFileSync, writeFileSync } from 'node:fs'

/** What the build needs of the devDependencies: the compiler, types, and the peers src/ imports. */
export function isBuildDependency(name, peers = {}) {
  return name === 'typescript' || name.startsWith('@types/') || name in peers
}

const file = process.argv[2] ?? 'package.json'
const manifest = JSON.parse(readFileSync(file, 'utf8'))
manifest.devDependencies = Object.fromEntries(
  Object.entries(manifest.devDependencies ?? {}).filter(([name]) => isBuildDependency(name, manifest.peerDependencies)),
)
writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`)
