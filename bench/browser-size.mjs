#!/usr/bin/env node
// The size of plant-store-mock/msw's browser entry (#33), as the README's "Without a server" states it:
// src/msw-browser.ts bundled by esbuild (a devDependency) as an app's bundler would, for a browser,
// ES modules with code splitting, minified, `msw` left out (the app has it already); then gzipped
// (Node's zlib, level 6, what web servers use by default). "The entry" is the entry chunk and every
// chunk it imports statically: what a page loads before `createHandlers` runs. A chunk loaded by
// `import()` (json-schema-faker, the XML serializer, the `$ref` bundler) is listed apart, and so is
// the share of each package in the entry, before gzip (esbuild's metafile).
//
//   npm run bench:browser-size              the table
//   npm run bench:browser-size -- --json    the same as JSON
import { gzipSync } from 'node:zlib'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { build } from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const { values } = parseArgs({ options: { json: { type: 'boolean', default: false } } })

// Nothing is written: the output files stay in memory, named under this folder.
const outdir = join(root, '.cache', 'browser-size')
const result = await build({
  entryPoints: [join(root, 'src/msw-browser.ts')],
  bundle: true,
  platform: 'browser',
  format: 'esm',
  splitting: true,
  minify: true,
  external: ['msw'],
  outdir,
  write: false,
  metafile: true,
  logLevel: 'silent',
})

const gzipped = new Map(result.outputFiles.map((file) => [file.path, gzipSync(file.contents, { level: 6 }).length]))
const outputs = Object.entries(result.metafile.outputs).map(([path, output]) => ({
  path: join(root, path),
  output,
  gzip: gzipped.get(join(root, path)) ?? 0,
}))
const byPath = new Map(outputs.map((chunk) => [chunk.path, chunk]))
const entry = outputs.find((chunk) => chunk.output.entryPoint?.endsWith('src/msw-browser.ts'))

// The entry and what it imports statically, chunk by chunk.
const loaded = new Set()
const pending = [entry]
while (pending.length) {
  const chunk = pending.pop()
  if (!chunk || loaded.has(chunk)) continue
  loaded.add(chunk)
  for (const imported of chunk.output.imports)
    if (imported.kind === 'import-statement') pending.push(byPath.get(join(root, imported.path)))
}
const onDemand = outputs.filter(
  (chunk) => !loaded.has(chunk) && chunk.output.entryPoint && chunk.output.bytes > 0 && !chunk.path.endsWith('.map'),
)

const packageOf = (input) =>
  /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? relative(root, input).replace(/\/[^/]*$/, '/')
const shares = new Map()
for (const chunk of loaded)
  for (const [input, { bytesInOutput }] of Object.entries(chunk.output.inputs))
    shares.set(packageOf(input), (shares.get(packageOf(input)) ?? 0) + bytesInOutput)

const kb = (bytes) => `${(bytes / 1000).toFixed(1)} KB`
const report = {
  entry: {
    minified: [...loaded].reduce((total, chunk) => total + chunk.output.bytes, 0),
    gzip: [...loaded].reduce((total, chunk) => total + chunk.gzip, 0),
  },
  onDemand: onDemand.map((chunk) => ({
    loads: packageOf(chunk.output.entryPoint),
    minified: chunk.output.bytes,
    gzip: chunk.gzip,
  })),
  shares: [...shares].sort((a, b) => b[1] - a[1]).map(([name, minified]) => ({ name, minified })),
}

if (values.json) console.log(JSON.stringify(report, null, 2))
else {
  console.log(
    `browser entry (src/msw-browser.ts, msw left out): ${kb(report.entry.gzip)} gzipped, ${kb(report.entry.minified)} minified`,
  )
  console.log('loaded on demand:')
  for (const chunk of report.onDemand) console.log(`  ${chunk.loads.padEnd(40)} ${kb(chunk.gzip)} gzipped`)
  console.log('the entry by package, minified (before gzip):')
  for (const share of report.shares.slice(0, 15)) console.log(`  ${share.name.padEnd(40)} ${kb(share.minified)}`)
}
