import { type Files, isMissing } from '../common/files.js'
import type { Swagger2Converter } from '../common/platform.js'
import { startupErrors } from '../errors/index.js'
import { parseJsonOrYaml } from '../internal/yaml-parser.js'
import { bundleExternalRefs } from './bundle-external-refs.js'
import { checkRegularFile, checkShape } from './check-shape.js'
import { convertSwagger2 } from './convert-swagger2.js'
import { describeNotes, normalizeSchemas } from './normalize-schemas.js'

/** 3.2 schemas are JSON Schema 2020-12 as 3.1's are, and read the same way. */
export type OpenApiVersion = '3.0' | '3.1' | '3.2'

/** A parsed description whose `$ref`s all point inside it (external files are bundled in). */
export interface SpecDocument {
  path: string
  version: OpenApiVersion
  document: Record<string, any>
  /** Problems the description has but the mock can serve around, one line each with where they are. */
  warnings?: string[]
}

/**
 * Reads, parses, version-checks and bundles a description; a Swagger 2.0 one is converted to
 * OpenAPI 3.0, so the rest of the engine sees only OpenAPI 3. Every failure is a `StartupError`
 * naming the file.
 */
export async function loadSpec(
  path: string,
  {
    files,
    allowRefOutside = [],
    swagger2,
  }: { files: Files; allowRefOutside?: readonly string[]; swagger2?: Swagger2Converter },
): Promise<SpecDocument> {
  const parsed = await parseDescription(path, await readText(path, files))
  checkShape(path, parsed)
  const version = detectVersion(path, parsed)
  const bundled = await bundleExternalRefs(path, parsed as Record<string, any>, allowRefOutside, files)
  let document = bundled as Record<string, any>
  if (version === '2.0') document = await convertSwagger2(path, document, swagger2)
  const notes = normalizeSchemas(document)
  const warnings = describeNotes(notes, version)
  if (version === '3.2') warnings.push(...unreadFeatures(document))
  if (!document.paths && !document.webhooks)
    warnings.push('the description declares no paths: the mock serves only its admin API.')
  else if (!document.paths)
    warnings.push('the description declares only webhooks and no paths: the mock serves only its admin API.')
  return { path, version: version === '2.0' ? '3.0' : version, document, warnings }
}

async function readText(path: string, files: Files): Promise<string> {
  try {
    await checkRegularFile(path, files)
    return await files.readText(path)
  } catch (error) {
    const reason = isMissing(error) ? 'the file does not exist' : (error as Error).message
    throw startupErrors.descriptionUnreadable(path, reason)
  }
}

async function parseDescription(path: string, text: string): Promise<unknown> {
  try {
    return await parseJsonOrYaml(text, { uniqueKeys: true, maxAliasCount: 1000 })
  } catch (error) {
    // The parser's message ends with a code frame after a blank line; the start-up message is one paragraph (#5).
    const reason = String((error as Error).message)
      .split('\n')[0]!
      .replace(/:$/, '')
    throw startupErrors.descriptionNotYaml(path, reason)
  }
}

function detectVersion(path: string, parsed: unknown): OpenApiVersion | '2.0' {
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw startupErrors.descriptionNotObject(path)
  }
  const { openapi, swagger, paths } = parsed as Record<string, unknown>
  if (swagger !== undefined && openapi === undefined) {
    if (swagger !== '2.0') throw startupErrors.descriptionUnsupportedSwagger(path, swagger)
    checkPaths(path, paths)
    return '2.0'
  }
  const minor = typeof openapi === 'string' ? /^3\.([012])\.\d+/.exec(openapi)?.[1] : undefined
  if (!minor) {
    throw startupErrors.descriptionUnsupportedVersion(path, openapi)
  }
  checkPaths(path, paths)
  return `3.${minor}` as OpenApiVersion
}

function checkPaths(path: string, paths: unknown): void {
  if (paths !== undefined && (typeof paths !== 'object' || paths === null)) {
    throw startupErrors.descriptionBadPaths(path)
  }
}

/**
 * What OpenAPI 3.2 adds that the mock accepts and does not act on, named once at start-up (#31):
 * read as 3.1 reads the rest, never refused. What it acts on needs no warning: `query` operations,
 * `additionalOperations`, `in: querystring` parameters, `$self` (the base of `$ref`s), `$ref`'d Media
 * Type Objects, Example Objects' `dataValue` and `serializedValue`, and `itemSchema` (the items of a stream).
 * `prefixEncoding` and `itemEncoding` are acted on in requests only, and so still named.
 */
function unreadFeatures(document: Record<string, any>): string[] {
  const found = new Set<string>()
  const visit = (node: unknown, depth: number): void => {
    if (depth > 64 || typeof node !== 'object' || node === null) return
    if (Array.isArray(node)) return node.forEach((item) => visit(item, depth + 1))
    const object = node as Record<string, any>
    if ('prefixEncoding' in object || 'itemEncoding' in object)
      found.add(
        '"prefixEncoding" and "itemEncoding" in answers (a request\'s parts are checked by them; a multipart answer\'s parts are JSON)',
      )
    if (typeof object.xml?.nodeType === 'string') found.add('xml "nodeType" (XML is written as 3.1 writes it)')
    if (object.discriminator?.defaultMapping !== undefined) found.add('discriminator "defaultMapping"')
    if (typeof object.oauth2MetadataUrl === 'string')
      found.add('"oauth2MetadataUrl" (tokens are checked as bearer tokens)')
    for (const [key, value] of Object.entries(object)) if (!EXAMPLE_DATA.has(key)) visit(value, depth + 1)
  }
  visit(document.paths, 0)
  visit(document.webhooks, 0)
  visit(document.components, 0)
  if (found.size === 0) return []
  return [`this OpenAPI 3.2 description uses what the mock accepts but does not act on: ${[...found].join('; ')}.`]
}

/** Examples (and Example Objects, all under `examples`) are data: a property named like a keyword there is not one. */
const EXAMPLE_DATA = new Set(['example', 'examples'])
