// The corpus runner's validator, set up independently of the mock: a fresh Ajv holding the whole
// (translated) description under the id `doc`, compiling `{ $ref: 'doc#/pointer' }` lazily.
import { Ajv } from 'ajv'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { getPointer, isObject, ptrToFragment } from './spec.mjs'

const addFormats = addFormatsModule.default ?? addFormatsModule

const SUBSCHEMA_MAPS = ['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas']
const SUBSCHEMA_ONE = [
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
  'additionalItems',
]
const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems']

/** Rewrites one schema (in place) for a JSON Schema validator: OpenAPI 3.0 / Swagger 2.0 dialect. */
function translateSchema(schema, version, seen) {
  if (!isObject(schema) || seen.has(schema)) return
  seen.add(schema)
  {
    // boolean exclusive bounds and `nullable` are 3.0 / 2.0 dialect; applied to 3.1 too, leniently
    for (const [key, bound] of [
      ['exclusiveMinimum', 'minimum'],
      ['exclusiveMaximum', 'maximum'],
    ]) {
      if (schema[key] === true) {
        if (typeof schema[bound] === 'number') schema[key] = schema[bound]
        else delete schema[key]
        delete schema[bound]
      } else if (schema[key] === false) delete schema[key]
    }
    if (schema.type === 'file') delete schema.type
    const nullable = schema.nullable === true || schema['x-nullable'] === true
    delete schema.nullable
    delete schema['x-nullable']
    if (nullable) {
      if (Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...schema.enum, null]
      if (typeof schema.type === 'string') schema.type = [schema.type, 'null']
      else if (schema.type === undefined || schema.$ref !== undefined) {
        // nullable without a type (often beside allOf/$ref): null or whatever the rest allows
        const rest = { ...schema }
        for (const k of Object.keys(schema)) delete schema[k]
        schema.anyOf = [rest, { type: 'null' }]
        if (rest.readOnly) schema.readOnly = true
        if (rest.writeOnly) schema.writeOnly = true
        translateSchema(rest, version, seen)
        return
      }
    }
  }
  delete schema.$schema
  // Examples and extensions are data, which Ajv would scan for `$id`s (akeneo, box: "resolves to more than one schema").
  for (const key of Object.keys(schema))
    if (key === 'example' || key === 'examples' || key.startsWith('x-')) delete schema[key]
  if (
    version === '3.1' &&
    typeof schema.$id === 'string' &&
    !/^[a-z][a-z0-9+.-]*:/i.test(schema.$id) &&
    !schema.$id.startsWith('#')
  ) {
    // relative $ids would re-base the doc's local refs; keep the pointers working
    delete schema.$id
  }
  for (const key of SUBSCHEMA_MAPS) {
    if (isObject(schema[key])) for (const s of Object.values(schema[key])) translateSchema(s, version, seen)
  }
  for (const key of SUBSCHEMA_ONE) translateSchema(schema[key], version, seen)
  for (const key of SUBSCHEMA_LISTS)
    if (Array.isArray(schema[key])) for (const s of schema[key]) translateSchema(s, version, seen)
  if (Array.isArray(schema.items)) for (const s of schema.items) translateSchema(s, version, seen)
  else translateSchema(schema.items, version, seen)
}

/** Finds every schema of a description (under `schema`, `schemas`, `definitions`) and translates it. */
function translateDocument(doc, version) {
  const seen = new Set()
  const walk = (node, depth) => {
    if (depth > 60 || node === null || typeof node !== 'object') return
    if (Array.isArray(node)) {
      for (const n of node) walk(n, depth + 1)
      return
    }
    for (const [key, value] of Object.entries(node)) {
      if (key.startsWith('x-')) continue
      if (key === 'example' || key === 'examples') {
        // Data, not schemas (the oracle never reads it), where Ajv would find `$id`s. (A parameter
        // or response named `x-…` is kept: names in components look like extensions.)
        delete node[key]
        continue
      }
      if (key === 'schema') translateSchema(value, version, seen)
      else if ((key === 'schemas' || key === 'definitions') && isObject(value))
        for (const s of Object.values(value)) translateSchema(s, version, seen)
      else walk(value, depth + 1)
    }
  }
  walk(doc, 0)
  // Swagger 2.0 non-body parameters are not schemas, but their `items` are
  return doc
}

export function createOracle(doc, version) {
  const translated = translateDocument(structuredClone(doc), version)
  const options = {
    strict: false,
    allErrors: true,
    verbose: true,
    validateSchema: false,
    logger: false,
    unicodeRegExp: false,
    validateFormats: true,
  }
  const ajv = version === '3.1' ? new Ajv2020(options) : new Ajv(options)
  addFormats(ajv)
  // OpenAPI formats ajv-formats lacks or treats strictly where the mock cannot be judged
  for (const f of ['int32', 'int64', 'float', 'double', 'byte', 'binary', 'password']) {
    if (!ajv.formats[f]) ajv.addFormat(f, true)
  }
  ajv.addSchema(translated, 'doc')
  const cache = new Map()

  /** A validator for the schema at `ptr` (a `#/...` pointer), or { error } when it cannot compile. */
  function compilePointer(ptr) {
    if (cache.has(ptr)) return cache.get(ptr)
    let out
    try {
      out = { validate: ajv.compile({ $ref: `doc${ptrToFragment(ptr)}` }) }
    } catch (e) {
      out = { error: String(e?.message ?? e).slice(0, 300) }
    }
    cache.set(ptr, out)
    return out
  }

  const standalone = new Map()
  function compileStandalone(schema) {
    const key = JSON.stringify(schema)
    if (standalone.has(key)) return standalone.get(key)
    const copy = structuredClone(schema)
    translateSchema(copy, version, new Set())
    let out
    try {
      out = { validate: ajv.compile(copy) }
    } catch (e) {
      out = { error: String(e?.message ?? e).slice(0, 300) }
    }
    standalone.set(key, out)
    return out
  }

  /**
   * Validates `value` against the schema at `ptr` (or the stand-alone `schema`). direction:
   * 'request' ignores `required` for readOnly properties, 'response' for writeOnly ones.
   * Returns { ok: true } | { ok: false, error: 'instancePath message', keyword } | { compileError }.
   */
  function check(value, { ptr, schema }, direction) {
    const compiled = ptr ? compilePointer(ptr) : compileStandalone(schema ?? {})
    if (compiled.error) return { compileError: compiled.error }
    let valid
    try {
      valid = compiled.validate(value)
    } catch (e) {
      return { compileError: `validator threw: ${e?.message ?? e}` }
    }
    if (valid) return { ok: true }
    const errors = compiled.validate.errors ?? []
    const skipFlag = direction === 'request' ? 'readOnly' : 'writeOnly'
    let dropped = 0
    const kept = errors.filter((e) => {
      if (e.keyword === 'required' && propertyHasFlag(e.parentSchema, e.params?.missingProperty, skipFlag)) {
        dropped++
        return false
      }
      return true
    })
    const combinators = new Set(['anyOf', 'oneOf', 'if', 'allOf'])
    const real = kept.filter(
      (e) => !(combinators.has(e.keyword) && !(e.keyword === 'oneOf' && e.params?.passingSchemas)),
    )
    if (kept.length === 0 || (dropped > 0 && real.length === 0)) return { ok: true }
    const first = real[0] ?? kept[0]
    return {
      ok: false,
      error: `${first.instancePath || '/'} ${first.message}${first.params?.allowedValues ? ` (${JSON.stringify(first.params.allowedValues).slice(0, 80)})` : ''}`,
      keyword: first.keyword,
    }
  }

  function propertyHasFlag(parentSchema, name, flag) {
    if (!isObject(parentSchema) || name === undefined) return false
    return hasFlag(parentSchema.properties?.[name], flag, 0)
  }

  function hasFlag(schema, flag, depth) {
    if (!isObject(schema) || depth > 8) return false
    if (schema[flag] === true) return true
    if (typeof schema.$ref === 'string' && schema.$ref.startsWith('#')) {
      const target = resolveLocal(schema.$ref)
      if (hasFlag(target, flag, depth + 1)) return true
    }
    for (const k of ['allOf', 'anyOf', 'oneOf']) {
      if (Array.isArray(schema[k]) && schema[k].some((s) => hasFlag(s, flag, depth + 1))) return true
    }
    return false
  }

  const resolveLocal = (ref) => getPointer(translated, ref)

  return { check, translated, resolveLocal }
}
