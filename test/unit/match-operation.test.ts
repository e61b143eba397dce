import { describe, expect, it } from 'vitest'
import { MockError } from '../../src/errors/index.js'
import { createRouter } from '../../src/routing/create-router.js'
import { matchOperation } from '../../src/routing/match-operation.js'

interface Op {
  id: string
  method: string
  path: string
  parameterLocations?: Record<string, string>
}

const op = (method: string, path: string, parameterLocations?: Record<string, string>): Op => ({
  id: `${method} ${path}`,
  method,
  path,
  parameterLocations,
})

/** The two accessors the router reads of a request. */
function request(query = '', headers: Record<string, string> = {}) {
  return { header: (name: string) => headers[name], query: () => new URLSearchParams(query) }
}

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

  describe('where several templates match one path', () => {
    const UUID = '00000000-0000-0000-0000-000000000001'
    const attachments = () =>
      createRouter([
        op('GET', '/Accounts/{AccountID}/Attachments/{AttachmentID}'),
        op('GET', '/Accounts/{AccountID}/Attachments/{FileName}'),
      ])
    const uuidOnly = (operation: Op, params: Record<string, string>) =>
      !operation.path.endsWith('{AttachmentID}') || /^[0-9a-f-]{36}$/.test(params.AttachmentID!)

    it('takes the first template whose operation accepts the path parameters', () => {
      const byName = matchOperation(
        attachments(),
        'GET',
        `/Accounts/${UUID}/Attachments/plant.jpg`,
        request(),
        uuidOnly,
      )
      expect(byName.operation.path).toBe('/Accounts/{AccountID}/Attachments/{FileName}')
      expect(byName.params).toEqual({ AccountID: UUID, FileName: 'plant.jpg' })
      const byId = matchOperation(attachments(), 'GET', `/Accounts/${UUID}/Attachments/${UUID}`, request(), uuidOnly)
      expect(byId.operation.path).toBe('/Accounts/{AccountID}/Attachments/{AttachmentID}')
      expect(byId.params).toEqual({ AccountID: UUID, AttachmentID: UUID })
    })

    it('falls back to the first match, with its own parameters only, when no operation accepts', () => {
      const router = createRouter([op('GET', '/a/{x}/b/{y}'), op('GET', '/a/{z}/b/{w}')])
      const match = matchOperation(router, 'GET', '/a/1/b/2', request(), () => false)
      expect(match.operation.path).toBe('/a/{x}/b/{y}')
      expect(match.params).toEqual({ x: '1', y: '2' })
    })

    it('asks only where templates compete, and not at all without a request (a preflight)', () => {
      const asked: string[] = []
      const accepts = (operation: Op) => (asked.push(operation.path), true)
      matchOperation(createRouter([op('GET', '/plants/{id}')]), 'GET', '/plants/7', request(), accepts)
      matchOperation(createRouter([op('GET', '/a/{id}'), op('GET', '/a/{key}/b')]), 'GET', '/a/1/b', request(), accepts)
      expect(asked).toEqual(['/a/{key}/b'])
      expect(
        matchOperation(attachments(), 'GET', `/Accounts/${UUID}/Attachments/plant.jpg`, undefined, uuidOnly).operation
          .path,
      ).toContain('{AttachmentID}')
    })

    it('keeps a literal segment ahead of the competing templates', () => {
      const router = createRouter([op('GET', '/a/{x}'), op('GET', '/a/{y}'), op('GET', '/a/mine')])
      expect(matchOperation(router, 'GET', '/a/mine', request(), () => false).operation.path).toBe('/a/mine')
    })
  })

  describe('path keys with a query or fragment part', () => {
    const glue = () =>
      createRouter([
        op('POST', '/#X-Amz-Target=AWSGlue.CreateJob', { 'X-Amz-Target': 'header' }),
        op('POST', '/#X-Amz-Target=AWSGlue.DeleteJob', { 'X-Amz-Target': 'header' }),
        op('POST', '/#X-Amz-Target=AWSGlue.GetJob'),
      ])

    it('routes on the part before the fragment and picks by the header a Name=Value fragment names', () => {
      const router = glue()
      expect(
        matchOperation(router, 'POST', '/', request('', { 'x-amz-target': 'AWSGlue.DeleteJob' })).operation.id,
      ).toBe('POST /#X-Amz-Target=AWSGlue.DeleteJob')
      expect(matchOperation(router, 'POST', '/', request('', { 'x-amz-target': 'AWSGlue.GetJob' })).operation.id).toBe(
        'POST /#X-Amz-Target=AWSGlue.GetJob',
      )
    })

    it('answers 404 naming what was expected when no operation of the path has its conditions met', () => {
      const error = caught(() =>
        matchOperation(glue(), 'POST', '/', request('', { 'x-amz-target': 'AWSGlue.Nothing' })),
      )
      expect(error.status).toBe(404)
      expect(error.message).toContain('header X-Amz-Target: AWSGlue.CreateJob')
    })

    it('answers 405 listing the methods of conditioned operations too', () => {
      const error = caught(() => matchOperation(glue(), 'GET', '/', request()))
      expect(error.status).toBe(405)
      expect(error.headers.allow).toBe('POST')
    })

    it('reads a fragment name where the operation declares it (IAM: #Action=... is a query parameter)', () => {
      const router = createRouter([
        op('POST', '/#Action=AddUser', { Action: 'query' }),
        op('POST', '/#Action=DeleteUser', { Action: 'query', Version: 'query' }),
      ])
      expect(matchOperation(router, 'POST', '/', request('Action=DeleteUser&Version=1')).operation.id).toBe(
        'POST /#Action=DeleteUser',
      )
      expect(caught(() => matchOperation(router, 'POST', '/', request('', { action: 'AddUser' }))).status).toBe(404)
    })

    it('reads a bare fragment name as a query parameter that must be present, and a declared header name, or Accept, as a header', () => {
      const router = createRouter([
        op('GET', '/tags/{arn}'),
        op('DELETE', '/tags/{arn}#tagKeys'),
        op('POST', '/events#x-amz-Client-Context', { 'x-amz-client-context': 'header' }),
        op('GET', '/thumbnail#Accept'),
      ])
      const match = matchOperation(router, 'DELETE', '/tags/arn1', request('tagKeys=a'))
      expect(match.operation.id).toBe('DELETE /tags/{arn}#tagKeys')
      expect(match.params).toEqual({ arn: 'arn1' })
      const error = caught(() => matchOperation(router, 'DELETE', '/tags/arn1', request()))
      expect(error.status).toBe(404)
      expect(error.message).toContain('query parameter tagKeys')
      expect(
        caught(() => matchOperation(router, 'PUT', '/tags/arn1', request()))
          .headers.allow?.split(', ')
          .sort(),
      ).toEqual(['DELETE', 'GET'])
      expect(matchOperation(router, 'POST', '/events', request('', { 'x-amz-client-context': 'c' })).operation.id).toBe(
        'POST /events#x-amz-Client-Context',
      )
      expect(matchOperation(router, 'GET', '/thumbnail', request('', { accept: 'image/jpeg' })).operation.id).toBe(
        'GET /thumbnail#Accept',
      )
    })

    it('requires the query parameters after ? (present, or equal to a value), most conditions first, else the plain path', () => {
      const router = createRouter([
        op('GET', '/{Bucket}'),
        op('GET', '/{Bucket}?acl'),
        op('GET', '/?Action=DescribeInstances'),
        op('GET', '/?Action=DescribeInstances&Version=2016-11-15'),
      ])
      expect(matchOperation(router, 'GET', '/b1', request('acl')).operation.id).toBe('GET /{Bucket}?acl')
      expect(matchOperation(router, 'GET', '/b1', request('other=1')).operation.id).toBe('GET /{Bucket}')
      expect(
        matchOperation(router, 'GET', '/', request('Version=2016-11-15&Action=DescribeInstances')).operation.id,
      ).toBe('GET /?Action=DescribeInstances&Version=2016-11-15')
      expect(matchOperation(router, 'GET', '/', request('Action=DescribeInstances&Version=2')).operation.id).toBe(
        'GET /?Action=DescribeInstances',
      )
      expect(caught(() => matchOperation(router, 'GET', '/', request('Action=RunInstances'))).message).toContain(
        'query parameter Action=DescribeInstances',
      )
    })

    it('serves HEAD by a conditioned GET', () => {
      const router = createRouter([op('GET', '/{Bucket}?acl')])
      expect(matchOperation(router, 'HEAD', '/b1', request('acl')).operation.id).toBe('GET /{Bucket}?acl')
    })

    it('matches any conditioned operation without a request (a CORS preflight)', () => {
      expect(matchOperation(glue(), 'POST', '/').operation.id).toBe('POST /#X-Amz-Target=AWSGlue.CreateJob')
    })
  })
})

describe('matchOperation: a 404 names the declared paths closest to the one sent', () => {
  const router = createRouter([
    op('GET', '/plants'),
    op('GET', '/plants/{id}'),
    op('GET', '/orders/{id}'),
    op('GET', '/orders'),
    op('GET', '/'),
  ])

  it('among those sharing its first segment, closest first', () => {
    expect(caught(() => matchOperation(router, 'GET', '/plant')).message).toBe(
      'No operation in the description matches GET /plant; of the 5 paths declared, the closest are /plants, /, /orders.',
    )
    expect(caught(() => matchOperation(router, 'GET', '/plants/1/leaves')).message).toBe(
      'No operation in the description matches GET /plants/1/leaves; of the 5 paths declared, the closest are /plants/{id}, /plants.',
    )
  })

  it('counts each path once, whatever its methods', () => {
    const one = createRouter([op('GET', '/plants'), op('POST', '/plants')])
    expect(caught(() => matchOperation(one, 'GET', '/x')).message).toBe(
      'No operation in the description matches GET /x; the one path declared is /plants.',
    )
  })
})

describe('matchOperation under server prefixes', () => {
  const router = createRouter([op('GET', '/pets/{id}'), op('GET', '/v1/pets'), op('POST', '/pets')], ['/api/v3', '/v1'])

  it('matches the path as sent first, then with a prefix taken off', () => {
    expect(matchOperation(router, 'GET', '/v1/pets').operation.id).toBe('GET /v1/pets')
    expect(matchOperation(router, 'GET', '/api/v3/pets/7')).toEqual({
      operation: expect.objectContaining({ id: 'GET /pets/{id}' }),
      params: { id: '7' },
    })
    expect(matchOperation(router, 'POST', '/v1/pets').operation.id).toBe('POST /pets')
  })

  it('names the prefixes in a 404 and the path as sent in a 405', () => {
    expect(caught(() => matchOperation(router, 'GET', '/api/v3/owners')).message).toBe(
      'No operation in the description matches GET /api/v3/owners; paths are served at the root and under /api/v3, /v1; of the 3 paths declared, the closest are /pets, /v1/pets, /pets/{id}.',
    )
    const method = caught(() => matchOperation(router, 'DELETE', '/api/v3/pets'))
    expect(method.status).toBe(405)
    expect(method.message).toContain('DELETE is not declared for /api/v3/pets')
  })
})
