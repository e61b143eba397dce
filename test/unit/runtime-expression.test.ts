import { LosslessNumber, parse as parseLossless } from 'lossless-json'
import { describe, expect, it } from 'vitest'
import {
  type ExpressionSource,
  RuntimeExpressionError,
  compileRuntimeExpression,
} from '../../src/events/runtime-expression.js'

interface SourceParts {
  url?: string
  method?: string
  path?: Record<string, string>
  query?: string
  requestHeaders?: Record<string, string>
  requestBody?: unknown
  status?: number
  responseHeaders?: Record<string, string>
  responseBody?: unknown
}

/** Headers are looked up as the caller promises: by the lower-cased name only. */
function sourceOf(parts: SourceParts = {}): ExpressionSource {
  const lookUp = (headers: Record<string, string> | undefined) => (name: string) =>
    headers !== undefined && Object.hasOwn(headers, name) ? headers[name] : undefined
  return {
    url: parts.url ?? 'http://localhost:4010/subscriptions?x=1',
    method: parts.method ?? 'POST',
    request: {
      path: parts.path ?? {},
      query: new URLSearchParams(parts.query ?? ''),
      header: lookUp(parts.requestHeaders),
      body: parts.requestBody,
    },
    response: { status: parts.status ?? 201, header: lookUp(parts.responseHeaders), body: parts.responseBody },
  }
}

const evaluate = (text: string, parts?: SourceParts) => compileRuntimeExpression(text).evaluate(sourceOf(parts))

describe('compileRuntimeExpression', () => {
  it('keeps the text as written, and text without expressions as it is', () => {
    const expression = compileRuntimeExpression('http://example.com/hooks')
    expect(expression.text).toBe('http://example.com/hooks')
    expect(expression.evaluate(sourceOf())).toBe('http://example.com/hooks')
    expect(expression.missingIn(sourceOf())).toBeUndefined()
  })

  it('reads a whole key that is one expression without braces', () => {
    expect(evaluate('$request.body#/callbackUrl', { requestBody: { callbackUrl: 'http://a.test/cb' } })).toBe(
      'http://a.test/cb',
    )
    expect(evaluate('$request.query.cb', { query: 'cb=http%3A%2F%2Fb.test%2Fcb' })).toBe('http://b.test/cb')
  })

  it('replaces each expression in braces and keeps the text around them', () => {
    const body = { callbackUrl: 'http://a.test', id: 'tx-1', email: 'a@b.test' }
    expect(evaluate('{$request.body#/callbackUrl}/data', { requestBody: body })).toBe('http://a.test/data')
    expect(evaluate('[{$method}|{$statusCode}]', { method: 'PUT', status: 202 })).toBe('[PUT|202]')
    expect(evaluate('{$request.body#/id}{$request.body#/email}', { requestBody: body })).toBe('tx-1a@b.test')
  })

  it("reads the spec's callback examples", () => {
    expect(evaluate('{$request.query.queryUrl}', { query: 'queryUrl=http://clientdomain.com/stillrunning' })).toBe(
      'http://clientdomain.com/stillrunning',
    )
    const successUrls = ['http://a.test/0', 'http://a.test/1', 'http://clientdomain.com/fast']
    expect(evaluate('{$request.body#/successUrls/2}', { requestBody: { successUrls } })).toBe(
      'http://clientdomain.com/fast',
    )
    const template = 'http://notificationServer.com?transactionId={$request.body#/id}&email={$request.body#/email}'
    expect(evaluate(template, { requestBody: { id: 'a1', email: 'x@y.test' } })).toBe(
      'http://notificationServer.com?transactionId=a1&email=x@y.test',
    )
  })

  it('reads $url, $method and $statusCode', () => {
    expect(evaluate('$url', { url: 'http://localhost:4010/p?q=1' })).toBe('http://localhost:4010/p?q=1')
    expect(evaluate('$method', { method: 'PATCH' })).toBe('PATCH')
    expect(evaluate('$statusCode', { status: 204 })).toBe('204')
  })

  it('reads path parameters, own ones only', () => {
    expect(evaluate('http://x.test/{$request.path.id}', { path: { id: 'fern 1' } })).toBe('http://x.test/fern 1')
    expect(evaluate('$request.path.constructor', { path: { id: '1' } })).toBeUndefined()
  })

  it('reads the first of repeated query parameters', () => {
    expect(evaluate('$request.query.cb', { query: 'cb=first&cb=second' })).toBe('first')
  })

  it('reads request and response headers by their lower-cased name, however the description writes it', () => {
    const parts = { requestHeaders: { 'x-callback-url': 'http://h.test' }, responseHeaders: { location: '/p/9' } }
    expect(evaluate('$request.header.X-Callback-URL', parts)).toBe('http://h.test')
    expect(evaluate('http://s.test{$response.header.Location}', parts)).toBe('http://s.test/p/9')
  })

  it('reads the whole body when it is text, and the response body like the request body', () => {
    expect(evaluate('$request.body', { requestBody: 'http://plain.test' })).toBe('http://plain.test')
    expect(evaluate('$request.body#', { requestBody: 'http://plain.test' })).toBe('http://plain.test')
    expect(evaluate('{$response.body#/links/0/href}', { responseBody: { links: [{ href: 'http://r.test' }] } })).toBe(
      'http://r.test',
    )
  })

  it('undoes ~1 and ~0 in pointer tokens, in that order', () => {
    const requestBody = { 'a/b': 'slash', 'm~n': 'tilde', '~1': 'literal' }
    expect(evaluate('$request.body#/a~1b', { requestBody })).toBe('slash')
    expect(evaluate('$request.body#/m~0n', { requestBody })).toBe('tilde')
    expect(evaluate('$request.body#/~01', { requestBody })).toBe('literal')
  })

  it('writes numbers and booleans as JSON does, and a LosslessNumber as its digits', () => {
    const requestBody = parseLossless('{"id":12345678901234567890,"n":1.5,"ok":false}')
    expect(evaluate('id={$request.body#/id}', { requestBody })).toBe('id=12345678901234567890')
    expect(evaluate('{$request.body#/n}/{$request.body#/ok}', { requestBody: { n: 1.5, ok: false } })).toBe('1.5/false')
    expect(evaluate('$request.body#/big', { requestBody: { big: new LosslessNumber('9007199254740993') } })).toBe(
      '9007199254740993',
    )
  })

  it('keeps an empty string as a value', () => {
    expect(evaluate('a{$request.query.q}b', { query: 'q=' })).toBe('ab')
  })
})

describe('RuntimeExpression values that resolve to nothing', () => {
  const missing = (text: string, parts: SourceParts) => {
    const expression = compileRuntimeExpression(text)
    expect(expression.evaluate(sourceOf(parts))).toBeUndefined()
    return expression.missingIn(sourceOf(parts))
  }

  it('names the first expression that found nothing, as written', () => {
    expect(missing('$request.body#/callbackUrl', { requestBody: {} })).toBe('$request.body#/callbackUrl')
    const template = 'http://n.test?id={$request.body#/id}&email={$request.body#/email}'
    expect(missing(template, { requestBody: { id: 'a1' } })).toBe('$request.body#/email')
    expect(missing(template, { requestBody: {} })).toBe('$request.body#/id')
  })

  it('finds nothing for an absent query parameter, header, path parameter or body', () => {
    expect(missing('$request.query.cb', {})).toBe('$request.query.cb')
    expect(missing('{$request.header.X-Hook}', {})).toBe('$request.header.X-Hook')
    expect(missing('$response.header.location', {})).toBe('$response.header.location')
    expect(missing('x/{$request.path.id}', {})).toBe('$request.path.id')
    expect(missing('$request.body', {})).toBe('$request.body')
    expect(missing('$response.body#/id', { responseBody: 'text' })).toBe('$response.body#/id')
  })

  it('finds nothing in null, an object or an array, whole or embedded: a URL must be text', () => {
    const requestBody = { none: null, object: { a: 1 }, list: ['a'] }
    for (const name of ['none', 'object', 'list']) {
      expect(missing(`$request.body#/${name}`, { requestBody })).toBe(`$request.body#/${name}`)
      expect(missing(`http://x.test/{$request.body#/${name}}`, { requestBody })).toBe(`$request.body#/${name}`)
    }
    expect(missing('$request.body', { requestBody })).toBe('$request.body')
  })

  it('follows own properties and array indexes only, never the prototype', () => {
    const requestBody = { list: ['a', 'b'], text: 'abc', n: new LosslessNumber('7') }
    for (const pointer of ['/constructor', '/toString', '/__proto__', '/list/length', '/list/-', '/list/2'])
      expect(missing(`$request.body#${pointer}`, { requestBody })).toBe(`$request.body#${pointer}`)
    for (const pointer of ['/list/01', '/list/1.0', '/text/0', '/text/length', '/n/value'])
      expect(missing(`$request.body#${pointer}`, { requestBody })).toBe(`$request.body#${pointer}`)
  })

  it('reports nothing missing where everything resolves', () => {
    const expression = compileRuntimeExpression('{$request.body#/id}')
    expect(expression.missingIn(sourceOf({ requestBody: { id: 'x' } }))).toBeUndefined()
  })
})

describe('compileRuntimeExpression on malformed text', () => {
  const refused = (text: string): RuntimeExpressionError => {
    let thrown: unknown
    try {
      compileRuntimeExpression(text)
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(RuntimeExpressionError)
    const error = thrown as RuntimeExpressionError
    expect(error.text).toBe(text)
    expect(error.message).toContain(`\`${text}\``)
    return error
  }

  it('refuses an unknown source', () => {
    expect(refused('$requests.body').reason).toContain('unknown source')
    expect(refused('{$uri}').reason).toContain('unknown source')
    expect(refused('$statusCode.x').reason).toContain('unknown source')
  })

  it('refuses an unknown part of the request or the response, and parameters a response has not', () => {
    expect(refused('$request.nope.x').reason).toContain('reads `nope` of the request')
    expect(refused('$request.body.id').reason).toContain('body#/pointer')
    expect(refused('$response.query.cb').reason).toContain('reads `query` of the response')
    expect(refused('$response.path.id').reason).toContain('reads `path` of the response')
  })

  it('refuses an empty name', () => {
    for (const text of ['$request.query.', '$request.path.', '{$request.header.}', '$request.header'])
      expect(refused(text).reason).toContain('names no')
  })

  it('refuses a header name that is not an HTTP token', () => {
    expect(refused('$request.header.X Hook').reason).toContain('not a header name')
  })

  it('refuses an unclosed brace, nested braces, empty braces and braces around something else', () => {
    expect(refused('http://x.test/{$request.body#/id').reason).toContain('never closed')
    expect(refused('{$request.body#/{id}}').reason).toContain('nested braces')
    expect(refused('http://x.test/{}').reason).toContain('not an expression')
    expect(refused('http://x.test/{id}').reason).toContain('not an expression')
    expect(refused('$request.query.base/{$request.body#/id}').reason).toContain('no braces')
  })

  it('refuses a pointer that does not start with / and a ~ escape other than ~0 or ~1', () => {
    expect(refused('$request.body#id').reason).toContain('must start with `/`')
    expect(refused('{$response.body#a/b}').reason).toContain('must start with `/`')
    expect(refused('$request.body#/a~2').reason).toContain('not followed by 0 or 1')
    expect(refused('$request.body#/a~').reason).toContain('not followed by 0 or 1')
  })

  it('names itself and the text in its message', () => {
    const error = refused('$requests.body')
    expect(error.name).toBe('RuntimeExpressionError')
    expect(error).toBeInstanceOf(Error)
    expect(error.message).toMatch(/^runtime expression `\$requests\.body`: /)
  })
})
