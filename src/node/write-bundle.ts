import { mkdir, writeFile } from 'node:fs/promises'
import { dirname, relative, resolve } from 'pathe'
import { type MockBundle, BUNDLE_FORMAT, bundledOptionsOf } from '../bundle/mock-bundle.js'
import type { MockOptions } from '../common/config.js'
import { type ReadSet, isMissing, recordingReads } from '../common/files.js'
import type { Logger } from '../common/log.js'
import { createEngine } from '../engine/engine.js'
import { startupErrors } from '../errors/index.js'
import { bytesToBase64 } from '../internal/bytes.js'
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
    bundle.files[key(path)] = contentOf(await nodeFiles.readBytes(path))
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
