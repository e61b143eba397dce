import { mkdir, writeFile } from 'node:fs/promises'
import { dirname, relative, resolve } from 'pathe'
import { type MockBundle, BUNDLE_FORMAT, bundledOptionsOf } from '../bundle/mock-bundle.js'
import type { MockOptions } from '../common/config.js'
import { type ReadSet, isMissing, recordingReads } from '../common/files.js'
import type { Logger } from '../common/log.js'
import { createEngine } from '../engine/engine.js'
import { startupErrors } from '../errors/index.js'
import { parse as parseYaml } from 'yaml'
import { bytesToBase64 } from '../internal/bytes.js'
import { isPlainObject } from '../internal/plain-object.js'
import { nodeFiles } from './node-files.js'
import { nodePlatform } from './node-platform.js'

/**
 * Makes a bundle (#33): starts the mock as `createApp` does, so the description, fixtures, scenarios
 * and seed data are checked as at start-up (a `StartupError` otherwise), and keeps every file and
 * folder that start-up read, by its path from the folder that holds them all.
 */
export async function makeBundle(options: MockOptions, logger: Logger): Promise<MockBundle> {
  const bundled = bundledOptionsOf(options)
  const read: ReadSet = { files: new Set(), folders: new Set() }
  const engine = await createEngine(options, logger, {
    platform: { ...nodePlatform, files: recordingReads(nodeFiles, read) },
  })
  const { spec, fixtures } = engine.options
  const root = folderHolding([spec, ...(fixtures ? [fixtures] : []), ...read.files, ...read.folders])
  const key = (path: string) => relative(root, path)
  const bundle: MockBundle = {
    plantStoreMockBundle: BUNDLE_FORMAT,
    spec: key(spec),
    fixtures: fixtures ? key(fixtures) : '',
    options: bundled,
    files: {},
    mediaTypes: {},
    folders: [],
  }
  const folders = new Set([...read.folders].map(key))
  // A path start-up looked for and did not find stays out; a folder it asked about goes with the folders.
  for (const path of [...read.files].sort()) {
    const info = await nodeFiles.stat(path).catch((error: unknown) => {
      if (isMissing(error)) return undefined
      throw error
    })
    if (info?.kind === 'folder') folders.add(key(path))
    if (info?.kind !== 'file') continue
    const content = contentOf(await nodeFiles.readBytes(path))
    bundle.files[key(path)] = typeof content === 'string' && YAML_FILE.test(path) ? asJsonText(content) : content
    const mediaType = nodeFiles.mediaTypeOf(path)
    if (mediaType) bundle.mediaTypes[key(path)] = mediaType
  }
  bundle.folders = [...folders].sort()
  return bundle
}

/** `plant-store-mock bundle`: makes the bundle and writes it to `out` (its folder made if missing); answers what it wrote. */
export async function writeBundle(options: MockOptions, out: string, logger: Logger): Promise<string> {
  const bundle = await makeBundle(options, logger)
  const text = JSON.stringify(bundle)
  const path = resolve(out)
  try {
    await mkdir(dirname(path), { recursive: true })
    await writeFile(path, text)
  } catch (error) {
    throw startupErrors.bundleUnwritable(path, (error as Error).message)
  }
  const count = Object.keys(bundle.files).length
  return `wrote ${path}: ${count} file${count === 1 ? '' : 's'}, ${Math.ceil(text.length / 1024)} KB`
}

const YAML_FILE = /\.ya?ml$/i

/**
 * A YAML file's text as JSON, which YAML 1.2 reads the same, where it converts exactly: a browser then
 * reads the bundle with no YAML parser (31 KB gzipped, fetched only for a file left as YAML) (#33).
 * Left as it is: what JSON cannot hold (integers beyond 2^53, which scenarios keep exact, `.inf`,
 * `!!binary`, a node that holds itself) or what does not parse (start-up has checked it already).
 */
function asJsonText(text: string): string {
  let value: unknown
  try {
    value = parseYaml(text, { uniqueKeys: true, maxAliasCount: 1000, intAsBigInt: true })
  } catch {
    return text
  }
  const json = jsonValueOf(value, new Set())
  return json === NOT_JSON ? text : JSON.stringify(json)
}

const NOT_JSON = Symbol('not JSON')

function jsonValueOf(value: unknown, holding: Set<object>): unknown {
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : NOT_JSON
  if (typeof value === 'number') return Number.isFinite(value) ? value : NOT_JSON
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value
  if (typeof value !== 'object' || holding.has(value)) return NOT_JSON
  if (!Array.isArray(value) && !isPlainObject(value)) return NOT_JSON
  holding.add(value)
  try {
    const copies: Array<[string, unknown]> = []
    for (const [key, inner] of Object.entries(value)) {
      const json = jsonValueOf(inner, holding)
      if (json === NOT_JSON) return NOT_JSON
      copies.push([key, json])
    }
    // fromEntries defines each key, `__proto__` too, as the YAML parser did.
    return Array.isArray(value) ? copies.map(([, json]) => json) : Object.fromEntries(copies)
  } finally {
    holding.delete(value)
  }
}

/** The text of UTF-8 bytes, or the bytes in base64 (an image fixture). */
function contentOf(bytes: Uint8Array): MockBundle['files'][string] {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes)
  } catch {
    return { base64: bytesToBase64(bytes) }
  }
}

/** The deepest folder that holds every path. */
function folderHolding(paths: string[]): string {
  let root = dirname(paths[0]!)
  for (const path of paths) while (relative(root, path).startsWith('..')) root = dirname(root)
  return root
}
