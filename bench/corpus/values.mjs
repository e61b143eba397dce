// A small builder of valid instances for request parameters and bodies, with json-schema-faker
// (fixed seed) as a fallback. Every candidate is checked by the oracle before use.
import { generateSync } from 'json-schema-faker'
import { isObject } from './spec.mjs'

const FORMAT_VALUES = {
  'date-time': '2024-01-02T03:04:05Z',
  date: '2024-01-02',
  time: '03:04:05Z',
  email: 'user@example.com',
  'idn-email': 'user@example.com',
  uuid: '123e4567-e89b-42d3-a456-426614174000',
  guid: '123e4567-e89b-42d3-a456-426614174000',
  uri: 'https://example.com/x',
  url: 'https://example.com/x',
  iri: 'https://example.com/x',
  'uri-reference': 'https://example.com/x',
  'iri-reference': 'https://example.com/x',
  'uri-template': 'https://example.com/{x}',
  hostname: 'example.com',
  'idn-hostname': 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  byte: 'eA==',
  base64: 'eA==',
  binary: 'x',
  password: 'secret',
  duration: 'P1D',
  regex: '^x$',
  'json-pointer': '/a',
  'relative-json-pointer': '0',
  int32: '1',
  int64: '1',
}

/** Candidates for a value of `schema`, in order of preference; the caller keeps the first valid one. */
export function candidatesFor(schema, { resolve, seed = 1, examples = [], direction = 'request', fillOne = false }) {
  const out = []
  for (const e of examples) if (e !== undefined) out.push(e)
  for (const variant of [0, 1, 2, 3]) {
    for (const useExamples of variant === 0 ? [true, false] : [false]) {
      try {
        const ctx = { resolve, variant, useExamples, direction, seed, steps: 0, fillOne }
        const v = build(schema, ctx, 0, 0)
        if (v !== UNBUILDABLE) out.push(v)
      } catch {
        // try the next candidate
      }
    }
  }
  return { list: dedupe(out), faker: () => faker(schema, resolve, seed) }
}

function faker(schema, resolve, seed) {
  try {
    return [
      generateSync(isObject(schema) && schema.$ref ? (resolve(schema.$ref) ?? {}) : schema, {
        seed,
        optionalsProbability: 0,
        maxDepth: 6,
        refResolver: (ref) => resolve(ref) ?? {},
        failOnInvalidTypes: false,
        minItems: 1,
      }),
    ]
  } catch {
    return []
  }
}

function dedupe(list) {
  const seen = new Set()
  return list.filter((v) => {
    const k = JSON.stringify(v) ?? 'undefined'
    if (seen.has(k)) return false
    seen.add(k)
    return true
  })
}

const UNBUILDABLE = Symbol('unbuildable')

function build(schema, ctx, depth, index) {
  if (++ctx.steps > 20_000) throw new Error('schema too large to build')
  if (depth > 14) return UNBUILDABLE
  if (schema === true || schema === undefined) return 'x'
  if (schema === false || !isObject(schema)) return UNBUILDABLE
  if (typeof schema.$ref === 'string') {
    const target = ctx.resolve(schema.$ref)
    if (target === undefined) return UNBUILDABLE
    const rest = { ...schema }
    delete rest.$ref
    const merged = Object.keys(rest).some((k) => !ANNOTATIONS.has(k)) ? { allOf: [target, rest] } : target
    return build(merged, ctx, depth + 1, index)
  }
  if ('const' in schema) return schema.const
  if (ctx.useExamples) {
    if ('example' in schema && schema.example !== undefined) return schema.example
    if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0]
    if ('default' in schema && schema.default !== undefined) return schema.default
  }
  if (Array.isArray(schema.enum) && schema.enum.length) {
    const options = schema.enum.filter((v) => v !== null)
    const list = options.length ? options : schema.enum
    return list[(index + ctx.variant) % list.length]
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length) {
    const merged = mergeAll([schema, ...schema.allOf], ctx, depth)
    return build(merged, ctx, depth + 1, index)
  }
  for (const key of ['oneOf', 'anyOf']) {
    if (Array.isArray(schema[key]) && schema[key].length) {
      const branches = schema[key].filter((b) => !(isObject(b) && b.type === 'null'))
      const list = branches.length ? branches : schema[key]
      const branch = list[ctx.variant % list.length]
      const rest = { ...schema }
      delete rest[key]
      const merged = mergeAll([rest, branch], ctx, depth)
      const value = build(merged, ctx, depth + 1, index)
      if (isObject(value) && isObject(schema.discriminator) && schema.discriminator.propertyName) {
        const name = schema.discriminator.propertyName
        const ref = isObject(branch) ? branch.$ref : undefined
        const mapping = Object.entries(schema.discriminator.mapping ?? {}).find(([, target]) => target === ref)
        if (mapping) value[name] = mapping[0]
        else if (ref && !(name in value)) value[name] = ref.split('/').pop()
      }
      return value
    }
  }
  let type = schema.type
  if (Array.isArray(type)) type = type.find((t) => t !== 'null') ?? type[0]
  if (type === undefined) {
    if (schema.properties || schema.additionalProperties || schema.required) type = 'object'
    else if (schema.items) type = 'array'
    else if (schema.format || schema.pattern || schema.minLength !== undefined) type = 'string'
    else if (schema.minimum !== undefined || schema.maximum !== undefined) type = 'number'
    else return 'x'
  }
  switch (type) {
    case 'object':
      return buildObject(schema, ctx, depth)
    case 'array':
      return buildArray(schema, ctx, depth)
    case 'string':
      return buildString(schema, ctx, index)
    case 'integer':
      return buildNumber(schema, true, index)
    case 'number':
      return buildNumber(schema, false, index)
    case 'boolean':
      return index % 2 === 0
    case 'null':
      return null
    default:
      return 'x'
  }
}

const ANNOTATIONS = new Set([
  'description',
  'title',
  'summary',
  'example',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
  'externalDocs',
  'xml',
  '$comment',
])

function mergeAll(schemas, ctx, depth) {
  const out = {}
  for (let s of schemas) {
    for (let hops = 0; isObject(s) && typeof s.$ref === 'string' && hops < 10; hops++) {
      const target = ctx.resolve(s.$ref)
      const rest = { ...s }
      delete rest.$ref
      s = target === undefined ? rest : { ...target, ...rest }
    }
    if (!isObject(s)) continue
    if (Array.isArray(s.allOf) && depth < 10) {
      const inner = { ...s }
      delete inner.allOf
      s = mergeAll([inner, ...s.allOf], ctx, depth + 1)
    }
    for (const [k, v] of Object.entries(s)) {
      if (k === 'allOf') continue
      if (k === 'properties' && isObject(v)) {
        out.properties = { ...(out.properties ?? {}) }
        for (const [name, prop] of Object.entries(v)) {
          out.properties[name] = out.properties[name] ? { allOf: [out.properties[name], prop] } : prop
        }
      } else if (k === 'required' && Array.isArray(v)) out.required = [...new Set([...(out.required ?? []), ...v])]
      else if (k === 'type' && out.type !== undefined) {
        // keep the first concrete type
      } else if (
        (k === 'minimum' || k === 'minLength' || k === 'minItems' || k === 'exclusiveMinimum') &&
        typeof out[k] === 'number'
      )
        out[k] = Math.max(out[k], v)
      else if (
        (k === 'maximum' || k === 'maxLength' || k === 'maxItems' || k === 'exclusiveMaximum') &&
        typeof out[k] === 'number'
      )
        out[k] = Math.min(out[k], v)
      else out[k] = v
    }
  }
  return out
}

function isSkipped(prop, ctx) {
  let s = prop
  for (let hops = 0; isObject(s) && typeof s.$ref === 'string' && hops < 10; hops++) s = ctx.resolve(s.$ref)
  if (!isObject(s)) return false
  return ctx.direction === 'request' ? s.readOnly === true : s.writeOnly === true
}

function buildObject(schema, ctx, depth) {
  const out = {}
  const props = isObject(schema.properties) ? schema.properties : {}
  const required = Array.isArray(schema.required) ? schema.required : []
  for (const name of required) {
    if (name in props && isSkipped(props[name], ctx)) continue
    const sub = name in props ? props[name] : isObject(schema.additionalProperties) ? schema.additionalProperties : 'x'
    const v = sub === 'x' ? 'x' : build(sub, ctx, depth + 1, 0)
    if (v === UNBUILDABLE) return UNBUILDABLE
    out[name] = v
  }
  const min = Math.max(
    typeof schema.minProperties === 'number' ? schema.minProperties : 0,
    ctx.fillOne && depth <= 2 ? 1 : 0,
  )
  for (const [name, prop] of Object.entries(props)) {
    if (Object.keys(out).length >= min) break
    if (name in out || isSkipped(prop, ctx)) continue
    const v = build(prop, ctx, depth + 1, 0)
    if (v !== UNBUILDABLE) out[name] = v
  }
  for (let i = 0; Object.keys(out).length < min && i < min + 2; i++) {
    if (schema.additionalProperties === false) break
    const v = isObject(schema.additionalProperties) ? build(schema.additionalProperties, ctx, depth + 1, i) : 'x'
    if (v === UNBUILDABLE) break
    out[`key${i}`] = v
  }
  return out
}

function buildArray(schema, ctx, depth) {
  const max = typeof schema.maxItems === 'number' ? schema.maxItems : Infinity
  const count = Math.min(Math.max(typeof schema.minItems === 'number' ? schema.minItems : 1, 1), max, 50)
  const items = Array.isArray(schema.prefixItems) ? null : Array.isArray(schema.items) ? null : (schema.items ?? {})
  const out = []
  for (let i = 0; i < count; i++) {
    const sub = items ?? (Array.isArray(schema.prefixItems) ? schema.prefixItems[i] : schema.items[i]) ?? {}
    const v = build(sub, ctx, depth + 1, i)
    if (v === UNBUILDABLE) return UNBUILDABLE
    out.push(v)
  }
  return out
}

function buildString(schema, ctx, index) {
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity
  if (typeof schema.pattern === 'string') {
    for (let attempt = 0; attempt < 8; attempt++) {
      try {
        const v = generateSync(
          { type: 'string', pattern: schema.pattern },
          { seed: ctx.seed + attempt * 7919 + index * 31 + ctx.variant },
        )
        if (typeof v === 'string' && v.length >= min && v.length <= max && matches(schema.pattern, v)) return v
      } catch {
        break
      }
    }
  }
  let v = FORMAT_VALUES[schema.format]
  if (v !== undefined) {
    if (index > 0 && (schema.format === 'uuid' || schema.format === 'guid')) v = v.slice(0, -1) + String(index % 10)
    else if (index > 0 && schema.format === 'email') v = `user${index}@example.com`
    else if (index > 0 && schema.format === 'date') v = `2024-01-${String((index % 28) + 1).padStart(2, '0')}`
    return v
  }
  v = index > 0 ? `abc${index}` : ctx.variant % 2 ? 'a1' : 'abc'
  if (v.length < min) v = v + 'x'.repeat(min - v.length)
  if (v.length > max) v = v.slice(0, max)
  return v
}

function matches(pattern, value) {
  try {
    return new RegExp(pattern, 'u').test(value)
  } catch {
    try {
      return new RegExp(pattern).test(value)
    } catch {
      return false
    }
  }
}

function buildNumber(schema, integer, index) {
  let lo = -Infinity
  let hi = Infinity
  let loEx = false
  let hiEx = false
  if (typeof schema.minimum === 'number') lo = schema.minimum
  if (typeof schema.exclusiveMinimum === 'number' && schema.exclusiveMinimum >= lo) {
    lo = schema.exclusiveMinimum
    loEx = true
  }
  if (typeof schema.maximum === 'number') hi = schema.maximum
  if (typeof schema.exclusiveMaximum === 'number' && schema.exclusiveMaximum <= hi) {
    hi = schema.exclusiveMaximum
    hiEx = true
  }
  const step = typeof schema.multipleOf === 'number' && schema.multipleOf > 0 ? schema.multipleOf : integer ? 1 : 1
  let start = lo === -Infinity ? (hi === Infinity ? 1 : Math.min(1, hi - step)) : lo
  let v = Math.ceil(start / step) * step
  if (integer) v = Math.ceil(v)
  if (loEx && v <= lo) v += step
  v += index * step
  if (hi !== Infinity && (v > hi || (hiEx && v >= hi))) v = Math.ceil(start / step) * step
  if (integer && !Number.isInteger(v)) v = Math.ceil(v)
  // fix floating artefacts of multipleOf
  if (!integer) v = Number(v.toPrecision(12))
  return v
}
