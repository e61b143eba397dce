// Builds one valid request per operation from the description: parameters, credentials, body,
// Accept. Every value is checked by the oracle first; what cannot be built is reported, not sent.
import { candidatesFor } from './values.mjs'
import { expectedSuccess, isObject, splitPathKey } from './spec.mjs'

class NotBuildable extends Error {
  constructor(message, oracle = false) {
    super(message)
    this.oracle = oracle
  }
}

/** { url, init: { method, headers, body } } or { notBuildable, oracle } */
export function buildRequest(op, { oracle, seed }) {
  try {
    return build(op, oracle, seed)
  } catch (e) {
    if (e instanceof NotBuildable) return { notBuildable: e.message, oracle: e.oracle }
    return { notBuildable: `request builder failed: ${e?.message ?? e}` }
  }
}

function build(op, oracle, seed) {
  if (op.problems.length) throw new NotBuildable(`description: ${op.problems[0]}`)
  const headers = {}
  const query = []
  const cookies = []
  // A path key's query or fragment part names parameters the request must carry (and their values).
  const { route, conditions } = splitPathKey(op.path, op.params)
  const conditionOf = (p) =>
    conditions.find(
      (c) => c.in === p.in && (p.in === 'header' ? c.name.toLowerCase() === p.name.toLowerCase() : c.name === p.name),
    )
  let path = route
  const pathValues = {}
  for (const p of op.params) {
    if (p.in === 'header' && /^(accept|content-type|authorization)$/i.test(p.name)) continue
    const condition = conditionOf(p)
    if (condition?.value !== undefined && p.content === undefined && (p.in === 'query' || p.in === 'header')) {
      if (p.in === 'query') query.push(`${encodeURIComponent(p.name)}=${encodeURIComponent(condition.value)}`)
      else headers[p.name] = condition.value
      continue
    }
    if (!p.required && !condition) continue
    if (p.problem) throw new NotBuildable(`parameter ${p.in}.${p.name}: ${p.problem}`)
    const value = pickValue(
      oracle,
      p.schemaPtr ? { ptr: p.schemaPtr } : { schema: p.schema ?? {} },
      p.examples,
      seed,
      `parameter ${p.in}.${p.name}`,
      true,
    )
    const text = p.content !== undefined ? JSON.stringify(value) : undefined
    switch (p.in) {
      case 'path':
        pathValues[p.name] = text !== undefined ? encodeURIComponent(text) : serialisePath(p, value)
        break
      case 'query':
        query.push(
          ...(text !== undefined
            ? [`${encodeURIComponent(p.name)}=${encodeURIComponent(text)}`]
            : serialiseQuery(p, value)),
        )
        break
      case 'header': {
        const h = text ?? serialiseHeader(p, value)
        if (!/^[\x20-\x7e]*$/.test(h)) throw new NotBuildable(`header ${p.name}: value is not printable ASCII`)
        headers[p.name] = h
        break
      }
      case 'cookie':
        cookies.push(`${p.name}=${text !== undefined ? encodeURIComponent(text) : serialiseCookie(p, value)}`)
        break
      default:
        throw new NotBuildable(`parameter location ${p.in}`)
    }
  }
  path = path.replace(/\{([^}]+)\}/g, (_, name) => pathValues[name] ?? '1')

  const creds = credentials(op)
  Object.assign(headers, creds.headers)
  query.push(...creds.query)
  cookies.push(...creds.cookies)
  if (cookies.length) headers.cookie = cookies.join('; ')

  const body = buildBody(op, oracle, seed)
  if (body.contentType) headers['content-type'] = body.contentType

  const success = expectedSuccess(op.responses)
  const accept = success ? op.responses[success].media[0]?.type : undefined
  headers.accept = accept ?? '*/*'

  addUnmetConditions(conditions, query, headers, pathValues)

  const url = path + (query.length ? `?${query.join('&')}` : '')
  return { url, init: { method: op.method.toUpperCase(), headers, body: body.body }, bodyKind: body.kind }
}

/**
 * What the path key asks for that no declared parameter gave: a query name (with its value, if any;
 * `?lat={lat}` carries the path parameter `lat`), a header.
 */
function addUnmetConditions(conditions, query, headers, pathValues) {
  const sentQuery = new Set(query.map((item) => decodeURIComponent(item.split('=')[0])))
  const sentHeaders = new Set(Object.keys(headers).map((name) => name.toLowerCase()))
  for (const c of conditions) {
    const carried = /^\{([^{}]+)\}$/.exec(c.value ?? '')?.[1]
    const value =
      carried !== undefined && pathValues[carried] !== undefined
        ? `=${pathValues[carried]}`
        : c.value === undefined
          ? ''
          : `=${encodeURIComponent(c.value)}`
    if (c.in === 'query' && !sentQuery.has(c.name)) query.push(encodeURIComponent(c.name) + value)
    if (c.in === 'header' && !sentHeaders.has(c.name.toLowerCase())) headers[c.name] = c.value ?? 'x'
  }
}

function pickValue(oracle, where, examples, seed, what, parameter = false) {
  const schema = where.ptr ? oracle.resolveLocal(where.ptr) : where.schema
  // an empty object or array serialises to nothing in a parameter: give it one entry
  const { list, faker } = candidatesFor(schema, {
    resolve: oracle.resolveLocal,
    seed,
    examples,
    direction: 'request',
    fillOne: parameter,
  })
  let firstError
  for (const pool of [list, null]) {
    for (const value of pool ?? faker()) {
      if (value === undefined) continue
      const r = oracle.check(value, where, 'request')
      if (r.compileError)
        throw new NotBuildable(`oracle could not compile the schema of ${what}: ${r.compileError}`, true)
      if (r.ok) return value
      firstError ??= r.error
    }
  }
  throw new NotBuildable(`no valid value for ${what} (${firstError ?? 'nothing built'})`)
}

const str = (v) => (typeof v === 'string' ? v : v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v))
const enc = (v) => encodeURIComponent(str(v))
const isPrimitive = (v) => v === null || typeof v !== 'object'

function flat(value, what) {
  if (Array.isArray(value)) {
    if (!value.every(isPrimitive)) throw new NotBuildable(`${what}: array of non-primitive values`)
    return { kind: 'array', items: value }
  }
  if (isObject(value)) {
    if (!Object.values(value).every(isPrimitive)) throw new NotBuildable(`${what}: object with non-primitive values`)
    return { kind: 'object', entries: Object.entries(value) }
  }
  return { kind: 'primitive', value }
}

const SEPARATORS_2 = { csv: ',', ssv: '%20', tsv: '%09', pipes: '|' }

function serialisePath(p, value) {
  const v = flat(value, `path.${p.name}`)
  if (p.collectionFormat !== undefined) {
    if (v.kind === 'object') throw new NotBuildable(`path.${p.name}: object in Swagger 2.0`)
    return v.kind === 'array' ? v.items.map(enc).join(SEPARATORS_2[p.collectionFormat] ?? ',') : enc(v.value)
  }
  const style = p.style ?? 'simple'
  const kv = (sep, joiner) =>
    v.entries.map(([k, x]) => (p.explode ? `${enc(k)}${sep}${enc(x)}` : `${enc(k)},${enc(x)}`)).join(joiner)
  if (style === 'simple') {
    if (v.kind === 'primitive') return enc(v.value)
    if (v.kind === 'array') return v.items.map(enc).join(',')
    return kv('=', ',')
  }
  if (style === 'label') {
    if (v.kind === 'primitive') return `.${enc(v.value)}`
    if (v.kind === 'array') return `.${v.items.map(enc).join(p.explode ? '.' : ',')}`
    return `.${kv('=', p.explode ? '.' : ',')}`
  }
  if (style === 'matrix') {
    const name = enc(p.name)
    if (v.kind === 'primitive') return `;${name}=${enc(v.value)}`
    if (v.kind === 'array')
      return p.explode ? v.items.map((x) => `;${name}=${enc(x)}`).join('') : `;${name}=${v.items.map(enc).join(',')}`
    return p.explode ? v.entries.map(([k, x]) => `;${enc(k)}=${enc(x)}`).join('') : `;${name}=${kv('', ',')}`
  }
  throw new NotBuildable(`path.${p.name}: style ${style}`)
}

function serialiseQuery(p, value) {
  const name = encodeURIComponent(p.name)
  if (p.collectionFormat !== undefined) {
    const v = flat(value, `query.${p.name}`)
    if (v.kind === 'object') throw new NotBuildable(`query.${p.name}: object in Swagger 2.0`)
    if (v.kind === 'primitive') return [`${name}=${enc(v.value)}`]
    if (p.collectionFormat === 'multi') return v.items.map((x) => `${name}=${enc(x)}`)
    return [`${name}=${v.items.map(enc).join(SEPARATORS_2[p.collectionFormat] ?? ',')}`]
  }
  const style = p.style ?? 'form'
  if (style === 'deepObject') {
    if (!isObject(value)) throw new NotBuildable(`query.${p.name}: deepObject with a non-object value`)
    const out = []
    for (const [k, x] of Object.entries(value)) {
      if (Array.isArray(x) && x.every(isPrimitive))
        for (const item of x) out.push(`${name}[${encodeURIComponent(k)}]=${enc(item)}`)
      else if (isPrimitive(x)) out.push(`${name}[${encodeURIComponent(k)}]=${enc(x)}`)
      else throw new NotBuildable(`query.${p.name}: nested deepObject`)
    }
    return out
  }
  const v = flat(value, `query.${p.name}`)
  if (v.kind === 'primitive') return [`${name}=${enc(v.value)}`]
  if (style === 'form') {
    if (v.kind === 'array')
      return p.explode ? v.items.map((x) => `${name}=${enc(x)}`) : [`${name}=${v.items.map(enc).join(',')}`]
    return p.explode
      ? v.entries.map(([k, x]) => `${enc(k)}=${enc(x)}`)
      : [`${name}=${v.entries.map(([k, x]) => `${enc(k)},${enc(x)}`).join(',')}`]
  }
  if (style === 'spaceDelimited' || style === 'pipeDelimited') {
    const sep = style === 'spaceDelimited' ? '%20' : '|'
    if (v.kind === 'array')
      return p.explode ? v.items.map((x) => `${name}=${enc(x)}`) : [`${name}=${v.items.map(enc).join(sep)}`]
    throw new NotBuildable(`query.${p.name}: ${style} object`)
  }
  throw new NotBuildable(`query.${p.name}: style ${style}`)
}

function serialiseHeader(p, value) {
  const v = flat(value, `header.${p.name}`)
  if (v.kind === 'primitive') return str(v.value)
  if (p.collectionFormat !== undefined) {
    if (v.kind === 'object') throw new NotBuildable(`header.${p.name}: object in Swagger 2.0`)
    return v.items.map(str).join({ csv: ',', ssv: ' ', tsv: '\t', pipes: '|' }[p.collectionFormat] ?? ',')
  }
  if (v.kind === 'array') return v.items.map(str).join(',')
  return v.entries.map(([k, x]) => (p.explode ? `${k}=${str(x)}` : `${k},${str(x)}`)).join(',')
}

function serialiseCookie(p, value) {
  const v = flat(value, `cookie.${p.name}`)
  if (v.kind === 'primitive') return enc(v.value)
  if (v.kind === 'array') {
    if (p.explode) throw new NotBuildable(`cookie.${p.name}: exploded array`)
    return v.items.map(enc).join(',')
  }
  if (p.explode) throw new NotBuildable(`cookie.${p.name}: exploded object`)
  return v.entries.map(([k, x]) => `${enc(k)},${enc(x)}`).join(',')
}

function credentials(op) {
  const none = { headers: {}, query: [], cookies: [] }
  const requirements = op.security.filter(isObject)
  if (!requirements.length || requirements.some((r) => Object.keys(r).length === 0)) return none
  const reasons = []
  for (const requirement of requirements) {
    const out = { headers: {}, query: [], cookies: [] }
    let ok = true
    for (const name of Object.keys(requirement)) {
      const s = op.schemeOf(name)
      const setAuth = (value) => {
        if (out.headers.authorization !== undefined && out.headers.authorization !== value) {
          ok = false
          reasons.push('two schemes need the Authorization header')
        }
        out.headers.authorization = value
      }
      if (!isObject(s)) {
        ok = false
        reasons.push(`security scheme ${name} is not declared`)
      } else if (s.type === 'http') {
        const scheme = String(s.scheme ?? '').toLowerCase()
        if (scheme === 'basic') setAuth(`Basic ${Buffer.from('user:pass').toString('base64')}`)
        else if (scheme === 'bearer') setAuth('Bearer t0k3n')
        else {
          ok = false
          reasons.push(`http scheme ${s.scheme}`)
        }
      } else if (s.type === 'oauth2' || s.type === 'openIdConnect') setAuth('Bearer t0k3n')
      else if (s.type === 'apiKey') {
        if (s.in === 'header') {
          if (/^authorization$/i.test(String(s.name))) setAuth('k3y')
          else out.headers[String(s.name).toLowerCase()] = 'k3y'
        } else if (s.in === 'query') out.query.push(`${encodeURIComponent(s.name)}=k3y`)
        else if (s.in === 'cookie') out.cookies.push(`${s.name}=k3y`)
        else {
          ok = false
          reasons.push(`apiKey in ${s.in}`)
        }
      } else {
        ok = false
        reasons.push(`security type ${s.type}`)
      }
      if (!ok) break
    }
    if (ok) return out
  }
  throw new NotBuildable(`no security requirement can be met: ${reasons[0]}`)
}

const rank = (type) => {
  const t = type.toLowerCase().split(';')[0].trim()
  if (t === 'application/json' || /\+json$/.test(t) || t === 'text/json' || /\/json$/.test(t)) return 0
  if (t === 'application/x-www-form-urlencoded') return 1
  if (t === 'multipart/form-data') return 2
  if (t === 'text/plain') return 3
  if (t.includes('*')) return 5
  return 4
}

function buildBody(op, oracle, seed) {
  if (!op.body || op.body.media.length === 0) return {}
  if (op.method === 'get' || op.method === 'head') {
    // fetch's Request cannot carry a body with GET or HEAD
    if (op.body.required) throw new NotBuildable(`${op.method.toUpperCase()} with a required request body`)
    return { kind: 'skipped optional body (GET/HEAD)' }
  }
  const sorted = [...op.body.media].sort((a, b) => rank(a.type) - rank(b.type))
  let lastProblem
  for (const media of sorted) {
    try {
      return bodyFor(media, oracle, seed)
    } catch (e) {
      if (!(e instanceof NotBuildable)) throw e
      if (e.oracle) throw e
      lastProblem = e.message
    }
  }
  if (!op.body.required) return { kind: 'skipped optional body' }
  throw new NotBuildable(`request body (${sorted.map((m) => m.type).join(', ')}): ${lastProblem}`)
}

function bodyFor(media, oracle, seed) {
  const where = media.schemaPtr
    ? { ptr: media.schemaPtr }
    : media.schema !== undefined
      ? { schema: media.schema }
      : undefined
  const base = media.type.toLowerCase().split(';')[0].trim()
  const r = rank(media.type)
  const value = () => (where ? pickValue(oracle, where, media.examples, seed, 'the body') : (media.examples[0] ?? {}))
  if (r === 0) return { kind: 'json', contentType: media.type, body: JSON.stringify(value()) }
  if (r === 5) {
    const ct =
      base === '*/*' || base === 'application/*'
        ? 'application/json'
        : base === 'text/*'
          ? 'text/plain'
          : base.replace('*', 'octet-stream')
    if (ct === 'application/json') return { kind: 'json', contentType: ct, body: JSON.stringify(value()) }
    return { kind: 'opaque', contentType: ct, body: 'x' }
  }
  if (r === 1) {
    const v = value()
    if (!isObject(v)) throw new NotBuildable('form body is not an object')
    const params = new URLSearchParams()
    for (const [k, x] of Object.entries(v)) {
      const format = media.collectionFormats?.[k]
      if (Array.isArray(x) && x.every(isPrimitive)) {
        if (format && format !== 'multi')
          params.append(k, x.map(str).join({ csv: ',', ssv: ' ', tsv: '\t', pipes: '|' }[format] ?? ','))
        else for (const item of x) params.append(k, str(item))
      } else if (isPrimitive(x)) params.append(k, str(x))
      else if (media.encoding?.[k]?.style === 'deepObject') appendDeep(params, k, x)
      else throw new NotBuildable(`form field ${k} is an object`)
    }
    if (params.size === 0 && Object.keys(v).length > 0)
      throw new NotBuildable('form body serialises to nothing (empty deepObject fields)')
    return { kind: 'form', contentType: media.type, body: params.toString() }
  }
  if (r === 2) {
    const v = value()
    if (!isObject(v)) throw new NotBuildable('multipart body is not an object')
    const form = new FormData()
    for (const [k, x] of Object.entries(v)) {
      const format = media.collectionFormats?.[k]
      if (Array.isArray(x) && x.every(isPrimitive)) {
        if (format && format !== 'multi') form.append(k, x.map(str).join(','))
        else for (const item of x) form.append(k, str(item))
      } else if (isPrimitive(x)) form.append(k, str(x))
      else form.append(k, new Blob([JSON.stringify(x)], { type: 'application/json' }))
    }
    return { kind: 'multipart', contentType: undefined, body: form }
  }
  if (r === 3) {
    const v = where ? value() : (media.examples[0] ?? 'x')
    return { kind: 'text', contentType: media.type, body: typeof v === 'string' ? v : JSON.stringify(v) }
  }
  if (/xml/.test(base)) {
    const ex = media.examples.find((e) => typeof e === 'string')
    return { kind: 'opaque', contentType: media.type, body: ex ?? '<?xml version="1.0"?><root/>' }
  }
  return { kind: 'opaque', contentType: media.type, body: 'x' }
}

/** `name[key][sub]=value`, `name[list][0]=value`: the deepObject encoding of a form field. */
function appendDeep(params, name, value, depth = 0) {
  if (depth > 8) throw new NotBuildable(`form field ${name} nests too deep`)
  if (isPrimitive(value)) params.append(name, str(value))
  else if (Array.isArray(value)) value.forEach((x, i) => appendDeep(params, `${name}[${i}]`, x, depth + 1))
  else for (const [k, x] of Object.entries(value)) appendDeep(params, `${name}[${k}]`, x, depth + 1)
}
