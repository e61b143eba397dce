// The picture of src/'s layers in CONTRIBUTING.md (#28), drawn from what dependency-cruiser, the tool that
// enforces them (.dependency-cruiser.cjs), finds: one box a layer, one arrow per folder import, leaving out
// an arrow another path already implies (a transitive reduction), so that the picture stays readable.
//   node scripts/layers-graph.mjs           writes the picture between its markers in CONTRIBUTING.md
//   node scripts/layers-graph.mjs --check   fails when the picture there is not the code's (npm run lint:layers)
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..')
const { LAYERS, ENTRY_POINTS } = createRequire(import.meta.url)(join(root, '.dependency-cruiser.cjs'))
const START = '<!-- layers-graph: made by scripts/layers-graph.mjs, do not edit by hand -->'
const END = '<!-- /layers-graph -->'

/** Folder → the folders of src/ it imports, as dependency-cruiser reads them (types counted). */
function folderImports() {
  const output = execFileSync(
    process.execPath,
    [
      join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs'),
      'src',
      '--config',
      '.dependency-cruiser.cjs',
      '--output-type',
      'json',
      '--collapse',
      '^src/[^/]+/',
    ],
    { cwd: root, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' },
  )
  const nameOf = (source) => source.replace(/^src\//, '').replace(/\/$/, '')
  const imports = new Map()
  for (const module of JSON.parse(output).modules) {
    if (!module.source.startsWith('src/')) continue
    const targets = module.dependencies
      .map((d) => d.resolved)
      .filter((t) => t.startsWith('src/') && t !== module.source)
    imports.set(nameOf(module.source), new Set(targets.map(nameOf)))
  }
  return imports
}

/** The arrows left once every arrow that a longer path already implies is taken out. */
function reduce(imports) {
  const reaches = (from, to, skip) => {
    const seen = new Set()
    const stack = [...(imports.get(from) ?? [])].filter((next) => next !== skip)
    while (stack.length) {
      const folder = stack.pop()
      if (folder === to) return true
      if (seen.has(folder)) continue
      seen.add(folder)
      stack.push(...(imports.get(folder) ?? []))
    }
    return false
  }
  return [...imports].flatMap(([from, targets]) =>
    [...targets].filter((to) => !reaches(from, to, to)).map((to) => [from, to]),
  )
}

function mermaid(imports) {
  const id = (folder) => folder.replace(/[^a-z0-9]/gi, '_')
  const lines = ['```mermaid', 'flowchart BT']
  const layers = [...LAYERS, { name: '9 entry points', folders: ENTRY_POINTS }]
  for (const [index, layer] of layers.entries()) {
    lines.push(`  subgraph L${index + 1}["${layer.name}"]`)
    for (const folder of layer.folders) lines.push(`    ${id(folder)}["${folder}"]`)
    lines.push('  end')
  }
  for (const [from, to] of reduce(imports).sort((a, b) => a.join().localeCompare(b.join())))
    lines.push(`  ${id(from)} --> ${id(to)}`)
  lines.push('```')
  return lines.join('\n')
}

const file = join(root, 'CONTRIBUTING.md')
const text = readFileSync(file, 'utf8')
const start = text.indexOf(START)
const end = text.indexOf(END)
if (start === -1 || end === -1) throw new Error(`CONTRIBUTING.md has no ${START} … ${END} markers`)
const updated = `${text.slice(0, start + START.length)}\n${mermaid(folderImports())}\n${text.slice(end)}`
if (process.argv.includes('--check')) {
  if (updated !== text) {
    console.error("The layers picture in CONTRIBUTING.md is not the code's: run `node scripts/layers-graph.mjs`.")
    process.exit(1)
  }
} else writeFileSync(file, updated)
