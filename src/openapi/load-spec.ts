import { parse as parseYaml } from 'yaml'
import { type Files, isMissing } from '../common/files.js'
import { startupErrors } from '../errors/index.js'
import { bundleExternalRefs } from './bundle-external-refs.js'
import { checkRegularFile, checkShape } from './check-shape.js'
import { convertSwagger2 } from './convert-swagger2.js'
import { describeNotes, normalizeSchemas } from './normalize-schemas.js'

export type OpenApiVersion = '3.0' | '3.1'

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
  { files, allowRefOutside = [] }: { files: Files; allowRefOutside?: readonly string[] },
): Promise<SpecDocument> {
  const parsed = parseDescription(path, await readText(path, files))
  checkShape(path, parsed)
  const version = detectVersion(path, parsed)
  const bundled = await bundleExternalRefs(path, parsed as Record<string, any>, allowRefOutside, files)
  let document = bundled as Record<string, any>
  if (version === '2.0') document = await convertSwagger2(path, document)
  const notes = normalizeSchemas(document)
  const warnings = describeNotes(notes, version)
  if (!document.paths && !document.webhooks)
    warnings.push('the description declares no paths: the mock serves only its admin API.')
  else if (!document.paths)
    warnings.push('the description declares only webhooks and no paths: the mock serves only its admin API.')
  return { path, version: version === '3.1' ? '3.1' : '3.0', document, warnings }
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

function parseDescription(path: string, text: string): unknown {
  // JSON.parse reads a JSON description about ten times faster than the YAML parser (#4); the YAML
  // parser still reads everything else, and gives the message when neither can.
  if (/^\s*[{[]/.test(text)) {
    try {
      return JSON.parse(text)
    } catch {
      // Not JSON after all (or broken JSON): the YAML parser decides and explains.
    }
  }
  try {
    // YAML 1.2 is a superset of JSON, so one parser reads both.
    return parseYaml(text, { uniqueKeys: true, maxAliasCount: 1000 })
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
  const version = typeof openapi === 'string' ? /^3\.(0|1)\.\d+/.exec(openapi)?.[1] : undefined
  if (!version) {
    throw startupErrors.descriptionUnsupportedVersion(path, openapi)
  }
  checkPaths(path, paths)
  return version === '0' ? '3.0' : '3.1'
}

function checkPaths(path: string, paths: unknown): void {
  if (paths !== undefined && (typeof paths !== 'object' || paths === null)) {
    throw startupErrors.descriptionBadPaths(path)
  }
}
