import type { MockOptions } from '../common/config.js'
import { startupErrors } from '../errors/index.js'
import { isPlainObject } from '../internal/plain-object.js'

/**
 * What `plant-store-mock bundle` writes (#33): every file the mock's start-up read (the description and
 * the files it `$ref`s, fixtures, scenarios, seed data), checked as at start-up, and the options it was
 * checked with, in one JSON document that `createHandlers({ bundle })` serves with no file system.
 * Paths are relative to the bundle's root, with `/` between folders; served, the root is `/`.
 */
export interface MockBundle {
  /** The format and its version: a later format gets a new number. */
  plantStoreMockBundle: typeof BUNDLE_FORMAT
  /** The description's path. */
  spec: string
  /** The fixtures folder's path; `''` when there is none. */
  fixtures: string
  /** The options the bundle was made and checked with; `createHandlers`' own options win over them. */
  options: BundledOptions
  /** Each file read: its text, or its bytes in base64 when they are not UTF-8 text. */
  files: Record<string, string | { base64: string }>
  /** The media type each file's name says, where it says one (`fixtures/getPhoto/200.png` → `image/png`). */
  mediaTypes: Record<string, string>
  /** Each folder listed, so that an empty one is there too. */
  folders: string[]
}

export const BUNDLE_FORMAT = 1

/** The options a bundle carries: not where the files were, nor how a server listens and logs. */
export type BundledOptions = Omit<MockOptions, (typeof NOT_CARRIED)[number] | (typeof NEEDS_NODE)[number]>

/** Options that have no meaning once the files are in the bundle, or without a server. */
const NOT_CARRIED = ['spec', 'fixtures', 'port', 'host', 'logFormat', 'quiet', 'allowRefOutside'] as const

/** Options that need Node: a file system to write or watch, a network client of their own. */
const NEEDS_NODE = ['proxy', 'record', 'stateFile', 'watch', 'coverageReport'] as const

/** The options to keep in a bundle, and a `StartupError` (`option_needs_node`) for one that cannot go in. */
export function bundledOptionsOf(options: MockOptions): BundledOptions {
  checkNoNodeOnlyOption(options, 'a mock bundle')
  const kept: Record<string, unknown> = { ...options }
  for (const name of NOT_CARRIED) delete kept[name]
  for (const [name, value] of Object.entries(kept)) if (value === undefined) delete kept[name]
  return kept as BundledOptions
}

/**
 * The options a mock serves a bundle with: the bundle's own, then those given (which win), the
 * description and fixtures being the bundle's (`bundlePlatform` serves them under `/`).
 */
export function optionsWithBundle<T extends MockOptions>(bundle: MockBundle, options: T): T {
  const { spec: _spec, fixtures: _fixtures, ...given } = options
  return {
    ...bundle.options,
    ...given,
    spec: `/${bundle.spec}`,
    fixtures: bundle.fixtures && `/${bundle.fixtures}`,
  } as T
}

/** Throws `option_needs_node` for the first option given that needs Node. */
export function checkNoNodeOnlyOption(options: MockOptions, where: string): void {
  const given = NEEDS_NODE.find((name) => options[name] !== undefined && options[name] !== false)
  if (given) throw startupErrors.needsNode(given, where)
}

/** The value as a bundle, or a `StartupError` (`bundle_invalid`) naming what is wrong with it; `where` names it. */
export function checkBundle(value: unknown, where: string): MockBundle {
  const fail = (problem: string) => startupErrors.bundleInvalid(where, problem)
  if (!isPlainObject(value)) throw fail('it is not a JSON object')
  if (value.plantStoreMockBundle !== BUNDLE_FORMAT)
    throw fail(
      value.plantStoreMockBundle === undefined
        ? 'it has no "plantStoreMockBundle" field'
        : `its format is ${JSON.stringify(value.plantStoreMockBundle)}, and this version reads ${BUNDLE_FORMAT}`,
    )
  if (typeof value.spec !== 'string' || typeof value.fixtures !== 'string')
    throw fail('"spec" and "fixtures" must be paths')
  if (
    !isPlainObject(value.files) ||
    !isPlainObject(value.options) ||
    !isPlainObject(value.mediaTypes) ||
    !Array.isArray(value.folders)
  )
    throw fail('"files", "options" and "mediaTypes" must be objects, and "folders" a list')
  for (const [path, file] of Object.entries(value.files))
    if (typeof file !== 'string' && !(isPlainObject(file) && typeof file.base64 === 'string'))
      throw fail(`the file "${path}" is neither a text nor { base64 }`)
  if (typeof value.files[value.spec] === 'undefined') throw fail(`it holds no description at "${value.spec}"`)
  return value as unknown as MockBundle
}
