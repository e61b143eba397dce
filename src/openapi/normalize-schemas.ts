import { collectRefs } from './bundle-external-refs.js'
import type { OpenApiVersion } from './load-spec.js'
import { mendKeywords } from './mend-keywords.js'
import { walkSchemas } from './walk.js'

/** What was read in a way other than its version says: the 3.0 forms of 3.1 keywords, keywords with values of the wrong kind. */
export type Notes = Map<string, string[]>

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
export function normalizeSchemas(document: Record<string, any>): Notes {
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
export const ANNOTATIONS: ReadonlySet<string> = new Set([
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

export function describeNotes(notes: Notes, version: OpenApiVersion | '2.0'): string[] {
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
    } else if (version === '3.1' || version === '3.2') {
      const meaning =
        what === 'nullable' ? '"or null"' : `a boolean beside ${what === 'exclusiveMinimum' ? 'minimum' : 'maximum'}`
      warnings.push(
        `this OpenAPI ${version} description uses the 3.0 form of "${what}" (${where}); it is read as OpenAPI 3.0 means it: ${meaning}.`,
      )
    }
  }
  return warnings
}
