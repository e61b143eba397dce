#!/usr/bin/env node
// Summarises a V8 .cpuprofile (from `node --cpu-prof`): self time by function and by package.
//
//   node bench/profile-summary.mjs CPU.xxx.cpuprofile [top=15]
import { readFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { table } from './harness.mjs'

/** Where a function lives: `hono`, `ajv`, `plant-store-mock` (dist/), `node:internal`, `(v8)`. */
function packageOf(url) {
  if (!url) return '(v8 / native)'
  const modules = url.lastIndexOf('node_modules/')
  if (modules !== -1) {
    const rest = url.slice(modules + 'node_modules/'.length).split('/')
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]
  }
  if (url.startsWith('node:')) return 'node (internal)'
  if (url.includes('/dist/')) return 'plant-store-mock (dist)'
  return url
}

function shortLocation(url, line) {
  if (!url) return ''
  const modules = url.lastIndexOf('node_modules/')
  const short =
    modules !== -1
      ? url.slice(modules + 'node_modules/'.length)
      : url.includes('/dist/')
        ? url.slice(url.indexOf('/dist/') + 1)
        : url.replace(/^file:\/\//, '')
  return `${short}:${line + 1}`
}

const NOT_WORK = new Set(['(idle)', '(program)'])

/**
 * Self time by function and by package, and total (inclusive) time of the mock's own functions.
 * Percentages are of busy time: `(idle)` and `(program)` samples are left out of the base.
 */
export function summariseProfile(profile, top = 15) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parentOf = new Map()
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id)
  const keyOf = ({ functionName, url, lineNumber }) => `${functionName || '(anonymous)'} ${url}:${lineNumber}`
  const selfMicros = new Map()
  const { samples, timeDeltas } = profile
  for (let i = 0; i < samples.length; i++) {
    // timeDeltas[i + 1] is the time from sample i to the next: charge it to sample i.
    const delta = timeDeltas[i + 1] ?? 0
    selfMicros.set(samples[i], (selfMicros.get(samples[i]) ?? 0) + Math.max(0, delta))
  }
  let busy = 0
  let idle = 0
  const functions = new Map()
  const packages = new Map()
  const inclusive = new Map()
  const stackKeys = new Map()
  const keysOnStack = (id) => {
    let keys = stackKeys.get(id)
    if (keys) return keys
    const own = keyOf(byId.get(id).callFrame)
    const parent = parentOf.get(id)
    keys = parent === undefined ? new Set([own]) : new Set([...keysOnStack(parent), own])
    stackKeys.set(id, keys)
    return keys
  }
  for (const [id, micros] of selfMicros) {
    const frame = byId.get(id).callFrame
    const name = frame.functionName || '(anonymous)'
    if (NOT_WORK.has(name)) {
      idle += micros
      continue
    }
    busy += micros
    const key = keyOf(frame)
    const entry = functions.get(key) ?? {
      name,
      where: shortLocation(frame.url, frame.lineNumber),
      pkg: packageOf(frame.url),
      micros: 0,
    }
    entry.micros += micros
    functions.set(key, entry)
    packages.set(entry.pkg, (packages.get(entry.pkg) ?? 0) + micros)
    for (const k of keysOnStack(id)) inclusive.set(k, (inclusive.get(k) ?? 0) + micros)
  }
  const ownFunctions = new Map()
  for (const node of profile.nodes) {
    const frame = node.callFrame
    if (packageOf(frame.url) !== 'plant-store-mock (dist)') continue
    const key = keyOf(frame)
    ownFunctions.set(key, {
      name: frame.functionName || '(anonymous)',
      where: shortLocation(frame.url, frame.lineNumber),
      micros: inclusive.get(key) ?? 0,
    })
  }
  const pct = (micros) => `${((100 * micros) / busy).toFixed(1)}%`
  const ms = (micros) => (micros / 1000).toFixed(0)
  const topFunctions = [...functions.values()].sort((a, b) => b.micros - a.micros).slice(0, top)
  const topPackages = [...packages.entries()].sort((a, b) => b[1] - a[1]).slice(0, 10)
  const topOwn = [...ownFunctions.values()]
    .filter((f) => f.micros > 0)
    .sort((a, b) => b.micros - a.micros)
    .slice(0, 12)
  return [
    `${(busy / 1e6).toFixed(2)} s busy, ${(idle / 1e6).toFixed(2)} s idle/program; percentages are of busy time.`,
    '',
    `Top ${top} functions by self time:`,
    table(
      ['#', 'self %', 'self ms', 'function', 'where'],
      topFunctions.map((f, i) => [String(i + 1), pct(f.micros), ms(f.micros), f.name, f.where]),
    ),
    '',
    'Self time by package:',
    table(
      ['self %', 'self ms', 'package'],
      topPackages.map(([pkg, micros]) => [pct(micros), ms(micros), pkg]),
    ),
    '',
    "The mock's own functions (dist/) by total time, callees included:",
    table(
      ['total %', 'total ms', 'function', 'where'],
      topOwn.map((f) => [pct(f.micros), ms(f.micros), f.name, f.where]),
    ),
  ].join('\n')
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [file, top = '15'] = process.argv.slice(2)
  if (!file) {
    console.error('usage: node bench/profile-summary.mjs <file.cpuprofile> [top]')
    process.exit(2)
  }
  console.log(summariseProfile(JSON.parse(readFileSync(file, 'utf8')), Number(top)))
}
