// The corpus runner's own reading of a description: loading, JSON pointers, local $refs, and the
// list of operations (OpenAPI 3.0 / 3.1 and Swagger 2.0), independent of the mock's src/.
import { readFileSync } from 'node:fs'
import { parse as parseYaml } from 'yaml'

export const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

export function loadDocument(file) {
  const text = readFileSync(file, 'utf8')
  if (/\.json$/i.test(file)) {
    try {
      return JSON.parse(text)
    } catch {
      // some .json files are YAML in disguise; fall through
    }
  }
  return parseYaml(text, { maxAliasCount: 10_000, uniqueKeys: false })
}

export function versionOf(doc) {
  if (typeof doc?.swagger === 'string' && doc.swagger.startsWith('2.')) return '2.0'
  if (typeof doc?.openapi === 'string' && doc.openapi.startsWith('3.1')) return '3.1'
  if (typeof doc?.openapi === 'string' && doc.openapi.startsWith('3.')) return '3.0'
  return undefined
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v)
export { isObject }

export const escapeToken = (t) => String(t).replaceAll('~', '~0').replaceAll('/', '~1')
const unescapeToken = (t) => t.replaceAll('~1', '/').replaceAll('~0', '~')

/** `#/a/b` + token → `#/a/b/token` */
export const child = (ptr, ...tokens) => tokens.reduce((p, t) => `${p}/${encodeURIComponent(escapeToken(t))}`, ptr)

/** The node at a local pointer (`#/...`), or undefined. */
export function getPointer(doc, ptr) {
  if (typeof ptr !== 'string' || !ptr.startsWith('#')) return undefined
  const body = ptr.slice(1)
  if (body === '' || body === '/') return body === '' ? doc : doc?.['']
  let node = doc
  for (const raw of body.slice(1).split('/')) {
    let token
    try {
      token = unescapeToken(decodeURIComponent(raw))
    } catch {
      token = unescapeToken(raw)
    }
    if (node === null || typeof node !== 'object' || !(token in node)) return undefined
    node = node[token]
  }
  return node
}

/** Follows local `$ref`s (at most 20 hops). Returns { node, ptr } or { error }. */
export function deref(doc, node, ptr) {
  for (let hops = 0; hops < 20; hops++) {
    if (!isObject(node) || typeof node.$ref !== 'string') return { node, ptr }
    const ref = node.$ref
    if (!ref.startsWith('#')) return { error: `external $ref ${ref}` }
    const target = getPointer(doc, ref)
    if (target === undefined) return { error: `unresolvable $ref ${ref}` }
    node = target
    ptr = normalisePtr(ref)
  }
  return { error: 'too many $ref hops' }
}

/** A $ref re-encoded the way child() writes pointers. */
function normalisePtr(ref) {
  const body = ref.slice(1)
  if (body === '') return '#'
  return (
    '#' +
    body
      .slice(1)
      .split('/')
      .map((raw) => {
        let t
        try {
          t = unescapeToken(decodeURIComponent(raw))
        } catch {
          t = unescapeToken(raw)
        }
        return '/' + encodeURIComponent(escapeToken(t))
      })
      .join('')
  )
}

/** Pointers are kept as URI fragments (tokens ~-escaped, then percent-encoded), as Ajv resolves them. */
export const ptrToFragment = (ptr) => ptr

// ---------------------------------------------------------------------------------------------
// Operations

/**
 * Every operation as
 * { method, path, ptr, operationId, params: [...], security, body, responses, version }
 * params: { name, in, required, schema, schemaPtr, style, explode, example, examples, content, collectionFormat, allowEmptyValue }
 * body: { required, media: [{ type, schema, schemaPtr, examples: [values] }] } | undefined
 * responses: { [code]: { ptr, media: [{ type, schema, schemaPtr }] } }
 */
export function listOperations(doc) {
  const version = versionOf(doc)
  const ops = []
  const paths = isObject(doc.paths) ? doc.paths : {}
  for (const [path, rawItem] of Object.entries(paths)) {
    const itemPtr = child('#', 'paths', path)
    const { node: item, ptr: resolvedItemPtr, error } = deref(doc, rawItem, itemPtr)
    if (error || !isObject(item)) continue
    for (const method of METHODS) {
      const op = item[method]
      if (!isObject(op)) continue
      const opPtr = child(resolvedItemPtr, method)
      ops.push(
        version === '2.0'
          ? operation2(doc, path, method, item, resolvedItemPtr, op, opPtr)
          : operation3(doc, path, method, item, resolvedItemPtr, op, opPtr, version),
      )
    }
  }
  return ops
}

function mergedParams(doc, item, itemPtr, op, opPtr) {
  const byKey = new Map()
  const problems = []
  const add = (list, listPtr) => {
    if (!Array.isArray(list)) return
    list.forEach((raw, i) => {
      const r = deref(doc, raw, child(listPtr, i))
      if (r.error || !isObject(r.node)) {
        problems.push(r.error ?? 'parameter is not an object')
        return
      }
      byKey.set(`${r.node.in}:${r.node.name}`, { param: r.node, ptr: r.ptr })
    })
  }
  add(item.parameters, child(itemPtr, 'parameters'))
  add(op.parameters, child(opPtr, 'parameters'))
  return { params: [...byKey.values()], problems }
}

function operation3(doc, path, method, item, itemPtr, op, opPtr, version) {
  const { params: raw, problems } = mergedParams(doc, item, itemPtr, op, opPtr)
  const params = raw.map(({ param: p, ptr }) => {
    const out = {
      name: p.name,
      in: p.in,
      required: p.in === 'path' ? true : p.required === true,
      style: p.style ?? (p.in === 'query' || p.in === 'cookie' ? 'form' : 'simple'),
      explode: p.explode ?? (p.style ?? (p.in === 'query' || p.in === 'cookie' ? 'form' : 'simple')) === 'form',
      allowEmptyValue: p.allowEmptyValue === true,
      examples: [],
    }
    if ('example' in p) out.examples.push(p.example)
    if (isObject(p.examples)) out.examples.push(...exampleValues(doc, p.examples))
    if (p.schema !== undefined) {
      const s = deref(doc, p.schema, child(ptr, 'schema'))
      out.schema = s.node
      out.schemaPtr = child(ptr, 'schema') // keep the $ref so Ajv follows it
      if (s.error) out.problem = s.error
    } else if (isObject(p.content)) {
      const [type, media] = Object.entries(p.content)[0] ?? []
      if (isObject(media)) {
        out.content = type
        out.schema = media.schema ?? {}
        out.schemaPtr = media.schema !== undefined ? child(ptr, 'content', type, 'schema') : undefined
        if ('example' in media) out.examples.push(media.example)
        if (isObject(media.examples)) out.examples.push(...exampleValues(doc, media.examples))
      }
    }
    return out
  })
  let body
  if (op.requestBody !== undefined) {
    const r = deref(doc, op.requestBody, child(opPtr, 'requestBody'))
    if (!r.error && isObject(r.node)) {
      const content = isObject(r.node.content) ? r.node.content : {}
      body = {
        required: r.node.required === true,
        media: Object.entries(content).map(([type, rawMedia]) => {
          const media = isObject(rawMedia) ? rawMedia : {}
          const examples = []
          if ('example' in media) examples.push(media.example)
          if (isObject(media.examples)) examples.push(...exampleValues(doc, media.examples))
          return {
            type,
            schema: media.schema,
            schemaPtr: media.schema !== undefined ? child(r.ptr, 'content', type, 'schema') : undefined,
            examples,
            encoding: isObject(media.encoding) ? media.encoding : undefined,
          }
        }),
      }
    } else if (r.error) problems.push(`requestBody: ${r.error}`)
  }
  const responses = {}
  if (isObject(op.responses)) {
    for (const [code, rawResponse] of Object.entries(op.responses)) {
      const r = deref(doc, rawResponse, child(opPtr, 'responses', code))
      if (r.error || !isObject(r.node)) {
        responses[code] = { ptr: r.ptr, media: [], problem: r.error }
        continue
      }
      const content = isObject(r.node.content) ? r.node.content : {}
      responses[code] = {
        ptr: r.ptr,
        media: Object.entries(content).map(([type, media]) => ({
          type,
          schema: isObject(media) ? media.schema : undefined,
          schemaPtr:
            isObject(media) && media.schema !== undefined ? child(r.ptr, 'content', type, 'schema') : undefined,
        })),
      }
    }
  }
  const schemes = isObject(doc.components?.securitySchemes) ? doc.components.securitySchemes : {}
  return {
    version,
    method,
    path,
    ptr: opPtr,
    operationId: op.operationId,
    params,
    body,
    responses,
    security: Array.isArray(op.security) ? op.security : Array.isArray(doc.security) ? doc.security : [],
    schemeOf: (name) => {
      const r = deref(doc, schemes[name], child('#', 'components', 'securitySchemes', name))
      return r.error ? undefined : r.node
    },
    problems,
  }
}

function exampleValues(doc, examples) {
  const out = []
  for (const raw of Object.values(examples)) {
    const r = deref(doc, raw, '#')
    if (!r.error && isObject(r.node) && 'value' in r.node) out.push(r.node.value)
  }
  return out
}

const SCHEMA_KEYS_2 = [
  'type',
  'format',
  'items',
  'collectionFormat',
  'default',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'enum',
  'multipleOf',
]

function operation2(doc, path, method, item, itemPtr, op, opPtr) {
  const { params: raw, problems } = mergedParams(doc, item, itemPtr, op, opPtr)
  const consumes = Array.isArray(op.consumes) ? op.consumes : Array.isArray(doc.consumes) ? doc.consumes : []
  const produces = Array.isArray(op.produces) ? op.produces : Array.isArray(doc.produces) ? doc.produces : []
  const params = []
  let body
  const formParams = []
  for (const { param: p, ptr } of raw) {
    if (p.in === 'body') {
      const examples = []
      if (isObject(p['x-examples'])) examples.push(...Object.values(p['x-examples']))
      body = {
        required: p.required === true,
        media: (consumes.length ? consumes : ['application/json']).map((type) => ({
          type,
          schema: p.schema ?? {},
          schemaPtr: p.schema !== undefined ? child(ptr, 'schema') : undefined,
          examples,
        })),
      }
      continue
    }
    const schema = {}
    for (const k of SCHEMA_KEYS_2) if (k in p && k !== 'collectionFormat') schema[k] = p[k]
    if (schema.type === 'file') {
      schema.type = 'string'
      schema.format = 'binary'
    }
    const out = {
      name: p.name,
      in: p.in,
      required: p.in === 'path' ? true : p.required === true,
      schema,
      schemaPtr: undefined, // compiled stand-alone (a 2.0 parameter is not a schema)
      collectionFormat: p.collectionFormat ?? 'csv',
      allowEmptyValue: p.allowEmptyValue === true,
      examples: 'x-example' in p ? [p['x-example']] : [],
    }
    if (p.in === 'formData') formParams.push(out)
    else params.push(out)
  }
  if (formParams.length) {
    const schema = { type: 'object', properties: {}, required: [] }
    for (const f of formParams) {
      schema.properties[f.name] = f.schema
      if (f.required) schema.required.push(f.name)
    }
    const types = consumes.filter((c) => /multipart\/form-data|x-www-form-urlencoded/i.test(c))
    const hasFile = formParams.some((f) => f.schema.format === 'binary')
    body = {
      required: schema.required.length > 0,
      media: (types.length ? types : [hasFile ? 'multipart/form-data' : 'application/x-www-form-urlencoded']).map(
        (type) => ({
          type,
          schema,
          schemaPtr: undefined,
          examples: [],
          collectionFormats: Object.fromEntries(formParams.map((f) => [f.name, f.collectionFormat])),
        }),
      ),
    }
  }
  const responses = {}
  if (isObject(op.responses)) {
    for (const [code, rawResponse] of Object.entries(op.responses)) {
      const r = deref(doc, rawResponse, child(opPtr, 'responses', code))
      if (r.error || !isObject(r.node)) {
        responses[code] = { ptr: r.ptr, media: [], problem: r.error }
        continue
      }
      const hasSchema = r.node.schema !== undefined
      responses[code] = {
        ptr: r.ptr,
        swagger2: true,
        media: hasSchema
          ? (produces.length ? produces : ['application/json']).map((type) => ({
              type,
              schema: r.node.schema,
              schemaPtr: child(r.ptr, 'schema'),
            }))
          : [],
        produces,
      }
    }
  }
  const schemes = isObject(doc.securityDefinitions) ? doc.securityDefinitions : {}
  return {
    version: '2.0',
    method,
    path,
    ptr: opPtr,
    operationId: op.operationId,
    params,
    body,
    responses,
    security: Array.isArray(op.security) ? op.security : Array.isArray(doc.security) ? doc.security : [],
    schemeOf: (name) => {
      const s = schemes[name]
      if (!isObject(s)) return undefined
      if (s.type === 'basic') return { type: 'http', scheme: 'basic' }
      if (s.type === 'oauth2') return { type: 'oauth2' }
      return s
    },
    problems,
  }
}

/**
 * A path key with a query or fragment part, as descriptions converted from AWS's models write them
 * (`/#X-Amz-Target=AWSGlue.CreateJob`, `/{Bucket}?acl`, `/tags/{arn}#tagKeys`): the route to send
 * and the parameters the request must carry, `{ in, name, value }` (no value: present). After `?`,
 * query parameters; after `#`, each where the operation declares it in the query or a header, else
 * `Name=Value` a header (AWS's JSON protocol) and a bare name a query parameter (Accept,
 * Content-Type and Authorization excepted: headers).
 */
export function splitPathKey(path, params = []) {
  const cut = path.search(/[?#]/)
  if (cut === -1) return { route: path, conditions: [] }
  const hash = path.indexOf('#', cut)
  const query = path[cut] === '?' ? path.slice(cut + 1, hash === -1 ? undefined : hash) : ''
  const fragment = hash === -1 ? '' : path.slice(hash + 1)
  const declaredIn = (name) =>
    params.find((p) => (p.in === 'query' || p.in === 'header') && p.name === name)?.in ??
    params.find((p) => p.in === 'header' && String(p.name).toLowerCase() === name.toLowerCase())?.in
  const conditions = [
    ...pathKeyItems(query).map(([name, value]) => ({ in: 'query', name, value })),
    ...pathKeyItems(fragment).map(([name, value]) => ({
      in:
        declaredIn(name) ??
        (value === undefined && !/^(accept|content-type|authorization)$/i.test(name) ? 'query' : 'header'),
      name,
      value,
    })),
  ]
  return { route: path.slice(0, cut), conditions }
}

/** `a=1&b` → `[['a', '1'], ['b', undefined]]`, percent-decoded. */
function pathKeyItems(text) {
  const decode = (t) => {
    try {
      return decodeURIComponent(t)
    } catch {
      return t
    }
  }
  return text
    .split('&')
    .filter((item) => item !== '')
    .map((item) => {
      const equals = item.indexOf('=')
      return equals === -1 ? [decode(item), undefined] : [decode(item.slice(0, equals)), decode(item.slice(equals + 1))]
    })
}

/** The response the mock should choose for a valid request: lowest 2xx, else 2XX, else default. */
export function expectedSuccess(responses) {
  const codes = Object.keys(responses)
  const exact = codes.filter((c) => /^2\d\d$/.test(c)).sort()
  if (exact.length) return exact[0]
  const range = codes.find((c) => /^2xx$/i.test(c))
  if (range) return range
  if ('default' in responses) return 'default'
  return undefined
}

/** The declared response for a status: exact, `NXX`, else `default`. */
export function declaredResponse(responses, status) {
  const s = String(status)
  if (s in responses) return s
  const range = Object.keys(responses).find((c) => c.toUpperCase() === `${s[0]}XX`)
  if (range) return range
  if ('default' in responses) return 'default'
  return undefined
}
