import { readFile } from 'node:fs/promises'
import { parse as parseYaml } from 'yaml'
import { StartupError } from '../errors.js'
import { nodeAt } from './resolve-ref.js'

export type OpenApiVersion = '3.0' | '3.1'

/** A parsed description whose `$ref`s all point inside it (external files are bundled in). */
export interface SpecDocument {
  path: string
  version: OpenApiVersion
  document: Record<string, any>
}

/**
 * Brings `$ref`'d files into the description, so that every `$ref` points inside it. Most
 * descriptions have no external `$ref`: they are only checked, and the bundler (a fifth of the
 * mock's import time) is not even loaded (#4).
 */
async function bundleExternalRefs(path: string, parsed: Record<string, any>): Promise<unknown> {
  const refs = collectRefs(parsed)
  if (refs.every((ref) => ref.startsWith('#'))) {
    const dangling = refs.find((ref) => nodeAt(parsed, ref.slice(1)) === undefined)
    if (dangling) throw new StartupError(`The description ${path} has a $ref that cannot be resolved: "${dangling}" points at nothing.`)
    return parsed
  }
  const { default: $RefParser } = await import('@apidevtools/json-schema-ref-parser')
  try {
    // Only local files may be referenced: the mock never downloads anything at run time.
    return await $RefParser.bundle(path, parsed, { resolve: { http: false } })
  } catch (error) {
    throw new StartupError(`The description ${path} has a $ref that cannot be resolved: ${(error as Error).message}`)
  }
}

function collectRefs(node: unknown, into: string[] = []): string[] {
  if (node === null || typeof node !== 'object') return into
  if (Array.isArray(node)) {
    for (const item of node) collectRefs(item, into)
    return into
  }
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string') into.push(value)
    else if (key !== 'example') collectRefs(value, into)
  }
  return into
}

/**
 * Reads, parses, version-checks and bundles a description; a Swagger 2.0 one is converted to
 * OpenAPI 3.0, so the rest of the engine sees only OpenAPI 3. Every failure is a `StartupError`
 * naming the file.
 */
export async function loadSpec(path: string): Promise<SpecDocument> {
  const parsed = parseDescription(path, await readText(path))
  const version = detectVersion(path, parsed)
  let document = (await bundleExternalRefs(path, parsed as Record<string, any>)) as Record<string, any>
  if (version === '2.0') document = await convertSwagger2(path, document)
  if (version !== '3.1') normalizeOpenApi30Schemas(document)
  return { path, version: version === '3.1' ? '3.1' : '3.0', document }
}

/**
 * Swagger 2.0 → OpenAPI 3.0 with swagger2openapi, after bundling (so every `$ref` is already
 * local). The converter's own resolver stays off and any fetch it might try is refused.
 * @note Imported on demand: an OpenAPI 3 description never pays for loading the converter.
 */
async function convertSwagger2(path: string, bundled: Record<string, any>): Promise<Record<string, any>> {
  const { convertObj } = await import('swagger2openapi')
  const refuseDownload = (url: unknown) => Promise.reject(new Error(`${String(url)} would be downloaded; only local files may be referenced`))
  try {
    const converted = await convertObj(bundled as never, {
      direct: true,
      resolve: false,
      resolveInternal: false,
      // Fix small slips (a missing `type` on a parameter...) the way the converter's CLI does.
      patch: true,
      warnOnly: true,
      fetch: refuseDownload as never,
    } as never)
    return converted as unknown as Record<string, any>
  } catch (error) {
    throw new StartupError(`The Swagger 2.0 description ${path} cannot be converted to OpenAPI 3.0: ${(error as Error).message}`)
  }
}

async function readText(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8')
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'the file does not exist' : (error as Error).message
    throw new StartupError(`Cannot read the description ${path}: ${reason}.`)
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
    const reason = String((error as Error).message).split('\n')[0]!.replace(/:$/, '')
    throw new StartupError(`The description ${path} is not valid YAML or JSON: ${reason}.`)
  }
}

function detectVersion(path: string, parsed: unknown): OpenApiVersion | '2.0' {
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new StartupError(`The description ${path} is not an OpenAPI document: its top level is not an object.`)
  }
  const { openapi, swagger, paths } = parsed as Record<string, unknown>
  if (swagger !== undefined && openapi === undefined) {
    if (swagger !== '2.0') throw new StartupError(`The description ${path} is Swagger ${JSON.stringify(swagger)}; the mock reads Swagger "2.0", OpenAPI 3.0.x and 3.1.x.`)
    checkPaths(path, paths)
    return '2.0'
  }
  const version = typeof openapi === 'string' ? /^3\.(0|1)\.\d+/.exec(openapi)?.[1] : undefined
  if (!version) {
    throw new StartupError(`The description ${path} has no supported "openapi" version (found ${JSON.stringify(openapi)}); use 3.0.x or 3.1.x.`)
  }
  checkPaths(path, paths)
  return version === '0' ? '3.0' : '3.1'
}

function checkPaths(path: string, paths: unknown): void {
  if (paths !== undefined && (typeof paths !== 'object' || paths === null)) {
    throw new StartupError(`The description ${path} has a "paths" that is not an object.`)
  }
}

/**
 * OpenAPI 3.0 schemas use two draft-04 habits that a JSON Schema 2020-12 validator reads differently:
 * `nullable: true` and boolean `exclusiveMinimum` / `exclusiveMaximum`. Rewrite them once, at start-up.
 * Examples are data, not schemas, so they are left as written.
 */
function normalizeOpenApi30Schemas(node: unknown): void {
  if (typeof node !== 'object' || node === null) return
  if (Array.isArray(node)) return node.forEach(normalizeOpenApi30Schemas)
  const schema = node as Record<string, any>
  if (schema.nullable === true) {
    if (typeof schema.type === 'string') schema.type = [schema.type, 'null']
    if (Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...schema.enum, null]
  }
  for (const [bound, limit] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
    if (schema[bound] === true && typeof schema[limit] === 'number') {
      schema[bound] = schema[limit]
      delete schema[limit]
    } else if (schema[bound] === false) {
      delete schema[bound]
    }
  }
  for (const [key, value] of Object.entries(schema)) {
    if (key !== 'example' && key !== 'examples') normalizeOpenApi30Schemas(value)
  }
}
