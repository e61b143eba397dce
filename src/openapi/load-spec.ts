import { readFile, realpath, stat } from 'node:fs/promises'
import { dirname, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse as parseYaml } from 'yaml'
import { startupErrors } from '../errors.js'
import { nodeAt } from './resolve-ref.js'
import { walkSchemas } from './walk.js'

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
 * Brings `$ref`'d files into the description, so that every `$ref` points inside it. Most
 * descriptions have no external `$ref`: they are only checked, and the bundler (a fifth of the
 * mock's import time) is not even loaded (#4).
 */
async function bundleExternalRefs(
  path: string,
  parsed: Record<string, any>,
  allowedOutside: readonly string[],
): Promise<unknown> {
  const refs = collectRefs(parsed)
  if (refs.every((ref) => ref.startsWith('#'))) {
    const dangling = refs.find((ref) => nodeAt(parsed, ref.slice(1)) === undefined)
    if (dangling) throw startupErrors.unresolvedRef(path, `"${dangling}" points at nothing`)
    return parsed
  }
  const { default: $RefParser } = await import('@apidevtools/json-schema-ref-parser')
  const roots = await Promise.all(
    [dirname(path), ...allowedOutside].map((root) => realpath(root).catch(() => resolve(root))),
  )
  // The bundler wraps a resolver's error in one of its own, without the message: the reason is kept here.
  let refused: string | undefined
  const read = (file: { url: string }) =>
    readReferencedFile(file.url, roots).catch((error: Error) => {
      refused ??= error.message
      throw error
    })
  try {
    // Only local files may be referenced: the mock never downloads anything at run time.
    return await $RefParser.bundle(path, parsed, {
      resolve: { http: false, file: { order: 100, canRead: true, read } },
    } as never)
  } catch (error) {
    throw startupErrors.unresolvedRef(path, refused ?? (error as Error).message)
  }
}

/** Largest file a description or one of its `$ref`s may be. */
const MAX_DESCRIPTION_BYTES = 256 * 1024 * 1024

/**
 * A file a `$ref` names. Descriptions come from other teams and from the internet: a `$ref` to
 * `/etc/passwd` or `/proc/self/environ` would be served back in a 200 body, and one to `/dev/zero`
 * read forever. So a `$ref`'d file must lie inside the description's own folder tree (or a folder
 * given with `--allow-ref-outside`), symbolic links resolved, and be a regular file of bounded size.
 */
async function readReferencedFile(url: string, roots: readonly string[]): Promise<Buffer> {
  if (/^[a-z][a-z0-9+.-]+:/i.test(url) && !url.startsWith('file:'))
    throw new Error(`${url} is not a local file; remote $refs are not followed`)
  const path = url.startsWith('file:') ? fileURLToPath(url) : decodeURI(url)
  const real = await realpath(path).catch(() => {
    throw new Error(`${path} does not exist`)
  })
  if (!roots.some((root) => real === root || real.startsWith(root.endsWith(sep) ? root : `${root}${sep}`))) {
    throw new Error(
      `${path} lies outside the description's folder (${roots[0]}); allow it with --allow-ref-outside <folder>`,
    )
  }
  await checkRegularFile(real)
  return readFile(real)
}

/** Refuses what is not a regular file of bounded size: a device, a FIFO, a directory would never end or never start. */
async function checkRegularFile(path: string): Promise<void> {
  const info = await stat(path)
  if (!info.isFile()) throw new Error(`${path} is not a regular file`)
  if (info.size > MAX_DESCRIPTION_BYTES) throw new Error(`${path} is larger than ${MAX_DESCRIPTION_BYTES} bytes`)
}

/**
 * Every `$ref` string of the document, found with a stack of its own: no depth overflows it.
 * @note Not `walkSchemas`: a `$ref` may stand for a parameter, a response, a path item or an Example
 * Object (under `examples`), not only for a schema, so every object is entered except an `example`'s
 * value, which is data.
 */
function collectRefs(root: unknown): string[] {
  const refs: string[] = []
  const stack: unknown[] = [root]
  while (stack.length) {
    const node = stack.pop()
    if (node === null || typeof node !== 'object') continue
    if (Array.isArray(node)) {
      for (const item of node) stack.push(item)
      continue
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') refs.push(value)
      else if (key !== 'example') stack.push(value)
    }
  }
  return refs
}

/** Deepest nesting of objects and arrays a description may have; far beyond any real one. */
const MAX_DESCRIPTION_DEPTH = 1000

/**
 * Refuses, with one paragraph, what no walk of the description could survive: an object inside
 * itself (a YAML anchor used within its own value) and nesting deeper than MAX_DESCRIPTION_DEPTH
 * (both printed a raw stack overflow before, #12). One pass with a stack of its own.
 */
function checkShape(path: string, root: unknown): void {
  const onPath = new Set<object>()
  const stack: Array<{ node: object; pointer: string; depth: number; leaving?: boolean }> = []
  if (typeof root === 'object' && root !== null) stack.push({ node: root, pointer: '', depth: 0 })
  while (stack.length) {
    const frame = stack.pop()!
    if (frame.leaving) {
      onPath.delete(frame.node)
      continue
    }
    if (onPath.has(frame.node)) throw startupErrors.descriptionSelfContaining(path, frame.pointer)
    if (frame.depth > MAX_DESCRIPTION_DEPTH)
      throw startupErrors.descriptionTooDeep(path, MAX_DESCRIPTION_DEPTH, frame.pointer.slice(0, 200))
    onPath.add(frame.node)
    stack.push({ ...frame, leaving: true })
    for (const [key, value] of Object.entries(frame.node)) {
      if (typeof value === 'object' && value !== null)
        stack.push({
          node: value,
          pointer: frame.depth < 50 ? `${frame.pointer}/${key}` : frame.pointer,
          depth: frame.depth + 1,
        })
    }
  }
}

/**
 * Reads, parses, version-checks and bundles a description; a Swagger 2.0 one is converted to
 * OpenAPI 3.0, so the rest of the engine sees only OpenAPI 3. Every failure is a `StartupError`
 * naming the file.
 */
export async function loadSpec(
  path: string,
  { allowRefOutside = [] }: { allowRefOutside?: readonly string[] } = {},
): Promise<SpecDocument> {
  const parsed = parseDescription(path, await readText(path))
  checkShape(path, parsed)
  const version = detectVersion(path, parsed)
  let document = (await bundleExternalRefs(path, parsed as Record<string, any>, allowRefOutside)) as Record<string, any>
  if (version === '2.0') document = await convertSwagger2(path, document)
  const notes = normalizeSchemas(document)
  const warnings = describeNotes(notes, version)
  if (!document.paths && !document.webhooks)
    warnings.push('the description declares no paths: the mock serves only its admin API.')
  else if (!document.paths)
    warnings.push('the description declares only webhooks and no paths: the mock serves only its admin API.')
  return { path, version: version === '3.1' ? '3.1' : '3.0', document, warnings }
}

/**
 * Swagger 2.0 → OpenAPI 3.0 with swagger2openapi, after bundling (so every `$ref` is already
 * local). The converter's own resolver stays off and any fetch it might try is refused.
 * @note Imported on demand: an OpenAPI 3 description never pays for loading the converter.
 */
async function convertSwagger2(path: string, bundled: Record<string, any>): Promise<Record<string, any>> {
  const { convertObj } = await import('swagger2openapi')
  const refuseDownload = (url: unknown) =>
    Promise.reject(new Error(`${String(url)} would be downloaded; only local files may be referenced`))
  try {
    const converted = await convertObj(
      bundled as never,
      {
        direct: true,
        resolve: false,
        resolveInternal: false,
        // Fix small slips (a missing `type` on a parameter...) the way the converter's CLI does.
        patch: true,
        warnOnly: true,
        fetch: refuseDownload as never,
      } as never,
    )
    return converted as unknown as Record<string, any>
  } catch (error) {
    throw startupErrors.descriptionSwaggerConversion(path, (error as Error).message)
  }
}

async function readText(path: string): Promise<string> {
  try {
    await checkRegularFile(path)
    return await readFile(path, 'utf8')
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'the file does not exist' : (error as Error).message
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

/** What was read in a way other than its version says: the 3.0 forms of 3.1 keywords, keywords with values of the wrong kind. */
type Notes = Map<string, string[]>

/**
 * Reads every schema as a JSON Schema 2020-12 validator must see it, once, at start-up:
 * - OpenAPI 3.0's two draft-04 habits, `nullable: true` and boolean `exclusiveMinimum` /
 *   `exclusiveMaximum`, are rewritten. Many 3.1 descriptions still carry them (converted from 3.0
 *   by hand); they get the same reading, since no other reading serves them, and a warning.
 * - A keyword whose value has the wrong kind (`pattern: 0`, `minLength: "5"`, `required: true` on a
 *   property, `type: file`) is mended where its meaning is plain, else dropped, with a warning: one
 *   slip must not refuse the whole description.
 * Examples are data, not schemas, so they are left as written.
 */
function normalizeSchemas(document: Record<string, any>): Notes {
  const notes: Notes = new Map()
  const identified: Array<{ schema: Record<string, any>; pointer: string }> = []
  const note = (what: string, pointer: string) => {
    const list = notes.get(what) ?? []
    if (list.length <= MAX_POINTERS_NOTED) list.push(pointer)
    notes.set(what, list)
  }
  walkSchemas(document, (schema, pointer) => {
    if (typeof schema.nullable === 'boolean') {
      if (schema.nullable) note('nullable', pointer)
      readNullable(schema)
    }
    for (const [bound, limit] of [
      ['exclusiveMinimum', 'minimum'],
      ['exclusiveMaximum', 'maximum'],
    ] as const) {
      if (typeof schema[bound] !== 'boolean') continue
      note(bound, pointer)
      if (schema[bound] === true && typeof schema[limit] === 'number') {
        schema[bound] = schema[limit]
        delete schema[limit]
      } else {
        delete schema[bound]
      }
    }
    mendKeywords(schema, (keyword) => note(`malformed:${keyword}`, pointer))
    if (typeof schema.$id === 'string') identified.push({ schema, pointer })
  })
  dropStrayIds(document, identified, (pointer) => note('stray-id', pointer))
  return notes
}

/**
 * `$id` in a schema changes how every `$ref` inside it resolves, and two schemas with the same `$id`
 * stop a validator (akeneo.com copies `$id: https://example.com/product` into four schemas). An `$id`
 * that no `$ref` names, or names again after its first schema, is dropped, with a warning.
 */
function dropStrayIds(
  document: unknown,
  identified: Array<{ schema: Record<string, any>; pointer: string }>,
  noted: (pointer: string) => void,
): void {
  if (identified.length === 0) return
  const refs = collectRefs(document)
  const kept = new Set<string>()
  for (const { schema, pointer } of identified) {
    const id = String(schema.$id).replace(/#.*$/, '')
    if (refs.some((ref) => ref === id || ref.startsWith(`${id}#`)) && !kept.has(id)) {
      kept.add(id)
      continue
    }
    delete schema.$id
    noted(pointer)
  }
}

const MAX_POINTERS_NOTED = 3

const COUNTS = ['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties']
const NUMBERS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf']
const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'])
/** Type names other languages use, read as the JSON type they mean. */
const TYPE_ALIASES: Record<string, string> = {
  int: 'integer',
  long: 'integer',
  float: 'number',
  double: 'number',
  bool: 'boolean',
  file: 'string',
  date: 'string',
  datetime: 'string',
  dict: 'object',
  list: 'array',
}

/** Mends or drops keywords whose values a validator cannot compile; `noted` is told each keyword touched. */
function mendKeywords(schema: Record<string, any>, noted: (keyword: string) => void): void {
  for (const keyword of COUNTS) {
    const value = schema[keyword]
    if (value === undefined || (Number.isInteger(value) && value >= 0)) continue
    noted(keyword)
    const number = Number(value)
    if (typeof value === 'string' && Number.isInteger(number) && number >= 0) schema[keyword] = number
    else delete schema[keyword]
  }
  for (const keyword of NUMBERS) {
    const value = schema[keyword]
    if (
      value === undefined ||
      (typeof value === 'number' && Number.isFinite(value) && (keyword !== 'multipleOf' || value > 0))
    )
      continue
    noted(keyword)
    const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN
    if (Number.isFinite(number) && (keyword !== 'multipleOf' || number > 0)) schema[keyword] = number
    else delete schema[keyword]
  }
  if (schema.pattern !== undefined && typeof schema.pattern !== 'string') {
    noted('pattern')
    delete schema.pattern
  }
  if (schema.format !== undefined && typeof schema.format !== 'string') {
    noted('format')
    delete schema.format
  }
  if (
    schema.required !== undefined &&
    !(Array.isArray(schema.required) && schema.required.every((name: unknown) => typeof name === 'string'))
  ) {
    noted('required')
    if (Array.isArray(schema.required))
      schema.required = schema.required.filter((name: unknown) => typeof name === 'string')
    else delete schema.required
  }
  if (schema.enum !== undefined && !(Array.isArray(schema.enum) && schema.enum.length > 0)) {
    noted('enum')
    delete schema.enum
  } else if (
    Array.isArray(schema.enum) &&
    (schema.type === 'integer' || schema.type === 'number') &&
    schema.enum.some((v: unknown) => typeof v === 'string')
  ) {
    // `type: integer, enum: ["6", "12"]` (WhatsApp) has no valid value; the numbers are what was meant.
    const numbers = schema.enum.map((v: unknown) =>
      typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v,
    )
    if (numbers.every((v: unknown) => typeof v === 'number' || v === null)) {
      noted('enum')
      schema.enum = numbers
    }
  }
  for (const keyword of ['allOf', 'anyOf', 'oneOf']) {
    const value = schema[keyword]
    if (value === undefined || (Array.isArray(value) && value.length > 0)) continue
    noted(keyword)
    // dnd5eapi.co writes `allOf: {"3": {...}}` and refers to `allOf/3/...`: the schemas it lists are
    // what was meant, each kept at its index (the gaps change nothing: `{}` in allOf, a schema no value
    // meets in anyOf and oneOf).
    const entries =
      typeof value === 'object' && value !== null
        ? Object.entries(value).filter(([, v]) => typeof v === 'object' && v !== null)
        : []
    if (entries.length === 0) delete schema[keyword]
    else if (entries.every(([key]) => /^\d{1,3}$/.test(key))) {
      const list: unknown[] = []
      for (const [key, sub] of entries) list[Number(key)] = sub
      schema[keyword] = Array.from(list, (sub) => sub ?? (keyword === 'allOf' ? {} : { not: {} }))
    } else schema[keyword] = entries.map(([, sub]) => sub)
  }
  for (const keyword of ['properties', 'patternProperties']) {
    if (
      schema[keyword] !== undefined &&
      (typeof schema[keyword] !== 'object' || schema[keyword] === null || Array.isArray(schema[keyword]))
    ) {
      noted(keyword)
      delete schema[keyword]
    }
  }
  if (schema.type !== undefined) mendType(schema, noted)
}

function mendType(schema: Record<string, any>, noted: (keyword: string) => void): void {
  const types: unknown[] = Array.isArray(schema.type) ? schema.type : [schema.type]
  if (types.every((t) => typeof t === 'string' && JSON_TYPES.has(t))) return
  noted('type')
  const mended = [
    ...new Set(
      types
        .map((t) => (typeof t === 'string' ? (JSON_TYPES.has(t) ? t : TYPE_ALIASES[t.toLowerCase()]) : undefined))
        .filter(Boolean),
    ),
  ]
  if (mended.length === 0) delete schema.type
  else schema.type = mended.length === 1 ? mended[0] : mended
}

/**
 * `nullable: true` means "or null". Beside `type`, `null` joins the types (and the `enum`); without
 * `type` (beside `allOf`, `oneOf`, `$ref`, or alone, common in large descriptions) the schema becomes
 * "null, or what it said" without moving what it said: its other keywords stay where they are and
 * `null` is let through by an `anyOf` around them.
 */
function readNullable(schema: Record<string, any>): void {
  const nullable = schema.nullable === true
  delete schema.nullable
  if (!nullable) return
  if (typeof schema.type === 'string') schema.type = [schema.type, 'null']
  else if (Array.isArray(schema.type)) {
    if (!schema.type.includes('null')) schema.type = [...schema.type, 'null']
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...schema.enum, null]
  if (schema.type !== undefined) return
  const constraints = Object.keys(schema).filter((key) => !ANNOTATIONS.has(key))
  if (constraints.length === 0) return
  const rest: Record<string, any> = {}
  for (const key of constraints) {
    rest[key] = schema[key]
    delete schema[key]
  }
  schema.anyOf = [{ type: 'null' }, rest]
}

/** Keywords that constrain nothing: they stay on a nullable schema that gets wrapped. */
const ANNOTATIONS = new Set([
  'title',
  'description',
  'example',
  'examples',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
  'xml',
  'externalDocs',
])

function describeNotes(notes: Notes, version: OpenApiVersion | '2.0'): string[] {
  const warnings: string[] = []
  for (const [what, pointers] of notes) {
    const shown = pointers
      .slice(0, MAX_POINTERS_NOTED)
      .map((p) => `#${p}`)
      .join(', ')
    const where = `at ${shown}${pointers.length > MAX_POINTERS_NOTED ? ' and more' : ''}`
    if (what === 'stray-id') {
      warnings.push(
        `a schema's "$id" is named by no $ref, or by one that an earlier schema answers (${where}): it is ignored, so that $refs inside it resolve in the description.`,
      )
    } else if (what.startsWith('malformed:')) {
      warnings.push(
        `the schema keyword "${what.slice('malformed:'.length)}" has a value of the wrong kind (${where}); it is mended where its meaning is plain, else ignored.`,
      )
    } else if (version === '3.1') {
      const meaning =
        what === 'nullable' ? '"or null"' : `a boolean beside ${what === 'exclusiveMinimum' ? 'minimum' : 'maximum'}`
      warnings.push(
        `this OpenAPI 3.1 description uses the 3.0 form of "${what}" (${where}); it is read as OpenAPI 3.0 means it: ${meaning}.`,
      )
    }
  }
  return warnings
}
