import { describe, expect, it } from 'vitest'
import { MockError } from '../../src/errors.js'
import { createRouter, matchOperation } from '../../src/routing/match-operation.js'

interface Op {
  id: string
  method: string
  path: string
}

const op = (method: string, path: string): Op => ({ id: `${method} ${path}`, method, path })

function caught(run: () => unknown): MockError {
  try {
    run()
  } catch (error) {
    if (error instanceof MockError) return error
    throw error
  }
  throw new Error('expected a MockError')
}

describe('matchOperation', () => {
  it('matches a literal path and method', () => {
    const router = createRouter([op('POST', '/plants'), op('GET', '/plants')])
    const match = matchOperation(router, 'POST', '/plants')
    expect(match.operation.id).toBe('POST /plants')
    expect(match.params).toEqual({})
  })

  it('extracts path parameters of a templated path', () => {
    const router = createRouter([op('GET', '/plants/{plantId}/leaves/{leafId}')])
    const match = matchOperation(router, 'GET', '/plants/12/leaves/3')
    expect(match.operation.id).toBe('GET /plants/{plantId}/leaves/{leafId}')
    expect(match.params).toEqual({ plantId: '12', leafId: '3' })
  })

  it('leaves path parameters percent-encoded as they came', () => {
    const router = createRouter([op('GET', '/plants/{name}')])
    expect(matchOperation(router, 'GET', '/plants/aloe%20vera').params).toEqual({ name: 'aloe%20vera' })
  })

  it('does not let a path parameter span several segments', () => {
    const router = createRouter([op('GET', '/plants/{id}')])
    expect(caught(() => matchOperation(router, 'GET', '/plants/1/2')).status).toBe(404)
  })

  it('does not match a templated segment that is empty', () => {
    const router = createRouter([op('GET', '/plants/{id}')])
    expect(caught(() => matchOperation(router, 'GET', '/plants/')).status).toBe(404)
  })

  it('prefers a literal path over a template that also matches', () => {
    const router = createRouter([op('GET', '/plants/{id}'), op('GET', '/plants/mine')])
    const match = matchOperation(router, 'GET', '/plants/mine')
    expect(match.operation.path).toBe('/plants/mine')
    expect(match.params).toEqual({})
  })

  it('prefers the template with more literal text whatever the declaration order', () => {
    const operations = [op('GET', '/{kind}/{id}'), op('GET', '/plants/{id}')]
    for (const order of [operations, [...operations].reverse()]) {
      const match = matchOperation(createRouter(order), 'GET', '/plants/7')
      expect(match.operation.path).toBe('/plants/{id}')
      expect(match.params).toEqual({ id: '7' })
    }
  })

  it('matches a parameter followed by literal text within one segment', () => {
    const router = createRouter([op('GET', '/files/{name}.json')])
    expect(matchOperation(router, 'GET', '/files/report.json').params).toEqual({ name: 'report' })
  })

  it('treats regular-expression characters of a path literally', () => {
    const router = createRouter([op('GET', '/files/{name}.json')])
    expect(caught(() => matchOperation(router, 'GET', '/files/reportxjson')).status).toBe(404)
  })

  it('answers 404 naming the method and path for a path no operation declares', () => {
    const router = createRouter([op('POST', '/plants')])
    const error = caught(() => matchOperation(router, 'POST', '/trees'))
    expect(error.status).toBe(404)
    expect(error.kind).toBe('not_found')
    expect(error.message).toContain('POST /trees')
  })

  it('does not match a literal path with a trailing slash added', () => {
    const router = createRouter([op('POST', '/plants')])
    expect(caught(() => matchOperation(router, 'POST', '/plants/')).status).toBe(404)
  })

  it('matches paths case-sensitively', () => {
    const router = createRouter([op('POST', '/plants')])
    expect(caught(() => matchOperation(router, 'POST', '/Plants')).status).toBe(404)
  })

  it('answers 405 with an Allow header listing the declared methods of a literal path', () => {
    const router = createRouter([op('POST', '/plants'), op('GET', '/plants')])
    const error = caught(() => matchOperation(router, 'DELETE', '/plants'))
    expect(error.status).toBe(405)
    expect(error.kind).toBe('method_not_allowed')
    expect(error.headers.allow?.split(', ').sort()).toEqual(['GET', 'POST'])
  })

  it('answers 405 with an Allow header for an undeclared method on a templated path', () => {
    const router = createRouter([op('GET', '/plants/{id}'), op('DELETE', '/plants/{id}')])
    const error = caught(() => matchOperation(router, 'PUT', '/plants/3'))
    expect(error.status).toBe(405)
    expect(error.headers.allow?.split(', ').sort()).toEqual(['DELETE', 'GET'])
  })

  it('keeps operations of one templated path under one route', () => {
    const router = createRouter([op('GET', '/plants/{id}'), op('DELETE', '/plants/{id}')])
    expect(matchOperation(router, 'GET', '/plants/3').operation.id).toBe('GET /plants/{id}')
    expect(matchOperation(router, 'DELETE', '/plants/3').operation.id).toBe('DELETE /plants/{id}')
  })

  it('falls through to a template that declares the method a matching literal path lacks', () => {
    const router = createRouter([op('GET', '/plants/mine'), op('DELETE', '/plants/{id}')])
    const match = matchOperation(router, 'DELETE', '/plants/mine')
    expect(match.operation.id).toBe('DELETE /plants/{id}')
    expect(match.params).toEqual({ id: 'mine' })
  })

  it('lists the methods of every matching path in Allow when none declares the method', () => {
    const router = createRouter([op('GET', '/plants/mine'), op('DELETE', '/plants/{id}')])
    const error = caught(() => matchOperation(router, 'PUT', '/plants/mine'))
    expect(error.status).toBe(405)
    expect(error.headers.allow?.split(', ').sort()).toEqual(['DELETE', 'GET'])
  })

  it('prefers a literal segment deep in the path over a parameter at the same depth', () => {
    const router = createRouter([op('GET', '/orgs/{org}/plants/{id}'), op('GET', '/orgs/{org}/plants/mine')])
    expect(matchOperation(router, 'GET', '/orgs/acme/plants/mine').operation.id).toBe('GET /orgs/{org}/plants/mine')
    expect(matchOperation(router, 'GET', '/orgs/acme/plants/7').params).toEqual({ org: 'acme', id: '7' })
  })

  it('backtracks from a literal segment whose subtree does not match', () => {
    const router = createRouter([op('GET', '/a/{x}/c'), op('GET', '/a/b/d')])
    expect(matchOperation(router, 'GET', '/a/b/c').params).toEqual({ x: 'b' })
  })

  it('finds the right route among a thousand templated paths', () => {
    const ops = Array.from({ length: 1000 }, (_, i) => op('GET', `/orgs/{org}/resources${i}/{id}`))
    const router = createRouter(ops)
    const match = matchOperation(router, 'GET', '/orgs/acme/resources737/5')
    expect(match.operation.id).toBe('GET /orgs/{org}/resources737/{id}')
    expect(match.params).toEqual({ org: 'acme', id: '5' })
  })

  it('names a path parameter as the matched template does when templates name a position differently', () => {
    const router = createRouter([op('GET', '/a/{id}'), op('GET', '/a/{key}/b')])
    expect(matchOperation(router, 'GET', '/a/1').params).toEqual({ id: '1' })
    expect(matchOperation(router, 'GET', '/a/1/b').params).toEqual({ key: '1' })
  })
})
