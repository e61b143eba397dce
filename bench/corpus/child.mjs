// One description, in its own process (forked by corpus.mjs): start the mock with createApp(),
// send one valid request per operation with app.request(), check every answer with the oracle,
// and report over IPC. Messages: started | refused | startup-crash, then done.
import { createOracle } from './oracle.mjs'
import { buildRequest } from './requests.mjs'
import { declaredResponse, expectedSuccess, listOperations, loadDocument, versionOf } from './spec.mjs'

const REQUEST_TIMEOUT_MS = 20_000

const job = JSON.parse(process.argv[2])
const send = (message) => new Promise((resolve) => process.send(message, () => resolve()))

async function main() {
  const { createApp } = await import(job.dist)
  const warnings = []
  const logger = { info() {}, warn: (m) => warnings.push(String(m)), error: (m) => warnings.push(String(m)) }
  const t0 = performance.now()
  let app
  try {
    app = await createApp({ spec: job.file, seed: job.seed, logger, stateful: job.stateful, dynamic: job.dynamic })
  } catch (e) {
    const message = String(e?.message ?? e)
    if (e?.name === 'StartupError') await send({ type: 'refused', message, warnings: warnings.length })
    else
      await send({
        type: 'startup-crash',
        message: `${e?.name ?? 'Error'}: ${message}`,
        stack: String(e?.stack ?? '')
          .split('\n')
          .slice(0, 6)
          .join('\n'),
      })
    return
  }
  const startMs = performance.now() - t0
  const rssMB = process.memoryUsage().rss / 2 ** 20
  await send({ type: 'started', startMs, rssMB, warnings: warnings.length, firstWarning: warnings[0] })

  const doc = loadDocument(job.file)
  const version = versionOf(doc)
  const oracle = createOracle(doc, version)
  let ops = listOperations(doc)
  const totalOps = ops.length
  if (job.maxOps && ops.length > job.maxOps) ops = subset(ops, job.maxOps, job.seed)
  const results = []
  for (const op of ops) {
    process.send({ type: 'progress', op: `${op.method.toUpperCase()} ${op.path}` })
    results.push(await runOperation(app, op, oracle, job.seed, job.unsatisfiable ?? []))
  }
  await send({ type: 'done', version, totalOps, ops: results, rssAfterMB: process.memoryUsage().rss / 2 ** 20 })
}

/** A deterministic subset: the n operations with the smallest seeded hash, in description order. */
function subset(ops, n, seed) {
  const keyed = ops.map((op, i) => ({ i, h: hash(`${seed}:${op.method} ${op.path}`) }))
  const keep = new Set(
    keyed
      .sort((a, b) => a.h - b.h)
      .slice(0, n)
      .map((k) => k.i),
  )
  return ops.filter((_, i) => keep.has(i))
}

function hash(s) {
  let h = 2166136261
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619) >>> 0
  return h
}

const baseType = (t) =>
  String(t ?? '')
    .toLowerCase()
    .split(';')[0]
    .trim()
const isJsonType = (t) => /^application\/json$|\+json$|\/json$/.test(baseType(t))

function mediaMatches(declared, actual) {
  const d = baseType(declared)
  const a = baseType(actual)
  if (d === a || d === '*/*') return true
  const [dt, ds] = d.split('/')
  const [at] = a.split('/')
  return dt === at && ds === '*'
}

async function runOperation(app, op, oracle, seed, unsatisfiable) {
  const name = `${op.method.toUpperCase()} ${op.path}`
  const built = buildRequest(op, { oracle, seed })
  if (built.notBuildable)
    return { op: name, kind: built.oracle ? 'oracle-compile' : 'not-buildable', problem: built.notBuildable }
  const out = { op: name, url: built.url.slice(0, 300), kind: 'ok' }
  let res
  let text
  try {
    const answer = (async () => {
      const r = await app.request(built.url, built.init)
      return { r, t: op.method === 'head' ? '' : await r.text() }
    })()
    let timer
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${REQUEST_TIMEOUT_MS / 1000} s`)), REQUEST_TIMEOUT_MS)
    })
    ;({ r: res, t: text } = await Promise.race([answer, timeout]).finally(() => clearTimeout(timer)))
  } catch (e) {
    return {
      ...out,
      kind: 'fail',
      cause: 'threw',
      problem: `app.request failed: ${String(e?.message ?? e).slice(0, 300)}`,
    }
  }
  out.status = res.status
  // A response schema no finite value meets (ci-sample.txt's `unsatisfiable=`): the mock answers 500
  // naming it (#30) rather than a body cut short, which is the right answer and not the mock's fault.
  if (unsatisfiable.includes(op.operationId) && res.status === 500 && text.includes('no body of it ends')) {
    out.notJudged = 'the description declares a response schema no finite value meets: answered 500 naming it'
    return out
  }
  const code = declaredResponse(op.responses, res.status)
  // An operation without responses (invalid OpenAPI) cannot be judged on its status, nor one that
  // declares only 1xx statuses, which HTTP never lets end an exchange (the mock answers 204, docs/how-an-answer-is-chosen.md, "Status").
  const judgeable = Object.keys(op.responses).some((c) => !/^1(\d\d|XX)$/i.test(c))
  out.declared = judgeable ? code !== undefined : null
  const success = expectedSuccess(op.responses)
  const wantsSuccess = success !== undefined && success !== 'default'
  out.expected = wantsSuccess ? res.status >= 200 && res.status < 300 : null
  const problems = []
  if (out.declared === false)
    problems.push({
      cause: 'undeclared-status',
      text: `status ${res.status} is not declared (declared: ${Object.keys(op.responses).join(', ')})${errorNote(res, text)}`,
    })
  else if (out.expected === false)
    problems.push({ cause: 'rejected', text: `answered ${res.status} to a valid request${errorNote(res, text)}` })
  if (code !== undefined) {
    const response = op.responses[code]
    const ct = res.headers.get('content-type')
    const noBody = res.status === 204 || res.status === 304 || op.method === 'head'
    if (response.media.length && !noBody) {
      const declaredTypes = response.media.map((m) => m.type)
      const media = ct
        ? (response.media.find((m) => baseType(m.type) === baseType(ct)) ??
          response.media.find((m) => mediaMatches(m.type, ct)))
        : undefined
      if (!ct) problems.push({ cause: 'content-type', text: `no Content-Type (declared: ${declaredTypes.join(', ')})` })
      else if (!media)
        problems.push({
          cause: 'content-type',
          text: `Content-Type ${baseType(ct)} is not declared for ${code} (declared: ${declaredTypes.join(', ')})`,
        })
      else if (isJsonType(ct) && media.schemaPtr && unsatisfiable.includes(op.operationId)) {
        out.notJudged = 'the description declares a response schema no finite value meets'
      } else if (isJsonType(ct) && media.schemaPtr) {
        let body
        let parsed = false
        try {
          body = JSON.parse(text)
          parsed = true
        } catch {
          problems.push({
            cause: 'body',
            text:
              text === '' ? 'empty body for a JSON response with a schema' : `body is not JSON: ${text.slice(0, 60)}`,
          })
          out.conforming = false
        }
        if (parsed) {
          const r = oracle.check(body, { ptr: media.schemaPtr }, 'response')
          if (r.compileError) {
            out.oracle = `oracle could not compile ${media.schemaPtr}: ${r.compileError}`
          } else {
            out.conforming = r.ok
            if (!r.ok) problems.push({ cause: 'body', text: `body ${r.error}`, keyword: r.keyword })
          }
        }
      }
    }
  }
  if (problems.length) {
    out.kind = 'fail'
    out.cause = problems[0].cause
    out.problem = problems
      .map((p) => p.text)
      .join(' | ')
      .slice(0, 600)
    out.sample = text.slice(0, 300)
  } else if (out.oracle) {
    out.kind = 'oracle-compile'
    out.problem = out.oracle
  }
  delete out.oracle
  return out
}

function errorNote(res, text) {
  let message = res.headers.get('x-mock-error') ?? undefined
  if (!message) {
    try {
      const j = JSON.parse(text)
      message = typeof j?.message === 'string' ? j.message : undefined
    } catch {
      // not JSON
    }
  }
  if (!message && text) message = text.slice(0, 160)
  return message ? `: ${message.slice(0, 300)}` : ''
}

main().then(
  () => process.exit(0),
  async (e) => {
    try {
      await send({
        type: 'runner-error',
        message: String(e?.stack ?? e)
          .split('\n')
          .slice(0, 5)
          .join('\n'),
      })
    } finally {
      process.exit(3)
    }
  },
)
