import { execFileSync } from 'node:child_process'
import { lstatSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../', import.meta.url))

/**
 * Refuses a run where node_modules/.bin/node exists, then builds dist/ once, before any test file
 * runs, when it is missing or older than its sources (the same check as `npm start`'s,
 * scripts/build-if-stale.mjs). Test files that spawn the CLI, run the container entrypoint or pack
 * the package all read dist/; building it from inside them let one file rewrite it while another's
 * child process was loading it.
 */
export default function buildOnce(): void {
  refuseShadowedNode()
  execFileSync(process.execPath, ['scripts/build-if-stale.mjs'], { cwd: root, stdio: 'inherit' })
}

/**
 * The Node binary packages (`node22`, `node24`) link a `node` bin that npm puts first on the PATH
 * of `npm test` and npx: the whole suite would run on Node 22 while it claims the Node you chose.
 * `npm ci` and `npm install` remove it (`prepare`); `npm install <package>` links it again.
 */
function refuseShadowedNode(): void {
  if (lstatSync(join(root, 'node_modules/.bin/node'), { throwIfNoEntry: false }))
    throw new Error(
      `node_modules/.bin/node shadows your Node (${process.version} runs this): run \`node scripts/unlink-node-bin.mjs\` and test again`,
    )
}
