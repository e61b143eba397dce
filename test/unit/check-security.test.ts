import { describe, expect, it } from 'vitest'
import { type SecurityCheck, compileSecurity, securityFailure } from '../../src/auth/check-security.js'
import { type MockError } from '../../src/errors/index.js'
import type { SecurityRequirement } from '../../src/openapi/operations.js'
import { nodePlatform } from '../../src/node/node-platform.js'
import { type FakeRequest, requestOf } from '../support/builders.js'
import { expectStartupErrorThrown } from '../support/startup-error.js'

const schemes = {
  bearerAuth: { type: 'http', scheme: 'bearer' },
  shoutingBearer: { type: 'http', scheme: 'Bearer' },
  basicAuth: { type: 'http', scheme: 'basic' },
  headerKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
  queryKey: { type: 'apiKey', in: 'query', name: 'api_key' },
  cookieKey: { type: 'apiKey', in: 'cookie', name: 'session' },
  oauth: { type: 'oauth2', flows: {} },
}

function compile(requirements: SecurityRequirement[], tokens: string[] = []): SecurityCheck {
  const check = compileSecurity(requirements, schemes, { tokens, crypto: nodePlatform.crypto })
  if (!check) throw new Error('expected the operation to need credentials')
  return check
}

/** The 401 the check gives, or `undefined` when the request passes. */
function outcome(check: SecurityCheck, request: FakeRequest): MockError | undefined {
  return securityFailure(check, requestOf(request))
}

const bearer = (value: string): FakeRequest => ({ headers: { authorization: value } })
const basic = (userPass: string): FakeRequest => bearer(`Basic ${Buffer.from(userPass).toString('base64')}`)

describe('compileSecurity', () => {
  it('leaves an operation without requirements open', () => {
    expect(compileSecurity([], schemes, { tokens: [], crypto: nodePlatform.crypto })).toBeUndefined()
  })

  it('leaves an operation open when an empty requirement makes credentials optional', () => {
    expect(
      compileSecurity([{ bearerAuth: [] }, {}], schemes, { tokens: [], crypto: nodePlatform.crypto }),
    ).toBeUndefined()
  })

  it('refuses a requirement naming a scheme that components do not declare', () => {
    const error = expectStartupErrorThrown(
      () => compileSecurity([{ missingAuth: [] }], schemes, { tokens: [], crypto: nodePlatform.crypto }),
      'description_uncheckable_security',
    )
    expect(error.message).toContain('missingAuth')
  })

  it('refuses an undeclared scheme name even beside an empty requirement', () => {
    const error = expectStartupErrorThrown(
      () => compileSecurity([{}, { missingAuth: [] }], schemes, { tokens: [], crypto: nodePlatform.crypto }),
      'description_uncheckable_security',
    )
    expect(error.message).toContain('missingAuth')
  })

  it('refuses a scheme type it cannot check', () => {
    const error = expectStartupErrorThrown(
      () => compileSecurity([{ tls: [] }], { tls: { type: 'mutualTLS' } }, { tokens: [], crypto: nodePlatform.crypto }),
      'description_uncheckable_security',
    )
    expect(error.message).toContain('mutualTLS')
  })
})

describe('bearer authentication', () => {
  const check = compile([{ bearerAuth: [] }])

  it('accepts any non-empty bearer token when no tokens are configured', () => {
    expect(outcome(check, bearer('Bearer abc.def-123'))).toBeUndefined()
  })

  it('reads the scheme name case-insensitively', () => {
    expect(outcome(check, bearer('bearer abc'))).toBeUndefined()
    expect(outcome(check, bearer('BEARER abc'))).toBeUndefined()
  })

  it('accepts a declared scheme written as "Bearer"', () => {
    expect(outcome(compile([{ shoutingBearer: [] }]), bearer('Bearer abc'))).toBeUndefined()
  })

  it('answers a request without credentials with a bare Bearer challenge', () => {
    const error = outcome(check, {})
    expect(error?.status).toBe(401)
    expect(error?.kind).toBe('unauthorized')
    // RFC 6750 §3.1: no error code when the request carries no authentication at all.
    expect(error?.headers['www-authenticate']).toBe('Bearer')
  })

  it('refuses another scheme in the Authorization header', () => {
    const error = outcome(check, bearer('Basic dXNlcjpwYXNz'))
    expect(error?.status).toBe(401)
    expect(error?.headers['www-authenticate']).toBe('Bearer')
  })

  it('refuses a scheme name that only starts with Bearer', () => {
    expect(outcome(check, bearer('Bearerabc'))?.status).toBe(401)
  })

  it('answers an empty token with an invalid_request challenge', () => {
    for (const header of ['Bearer', 'Bearer ', 'Bearer    ']) {
      const error = outcome(check, bearer(header))
      expect(error?.status).toBe(401)
      expect(error?.headers['www-authenticate']).toBe('Bearer error="invalid_request"')
    }
  })

  it('accepts only configured tokens when tokens are given', () => {
    const restricted = compile([{ bearerAuth: [] }], ['secret-1', 'secret-2'])
    expect(outcome(restricted, bearer('Bearer secret-1'))).toBeUndefined()
    expect(outcome(restricted, bearer('Bearer secret-2'))).toBeUndefined()
  })

  it('answers an unknown token with an invalid_token challenge when tokens are given', () => {
    const restricted = compile([{ bearerAuth: [] }], ['secret-1'])
    const error = outcome(restricted, bearer('Bearer secret-10'))
    expect(error?.status).toBe(401)
    expect(error?.headers['www-authenticate']).toBe('Bearer error="invalid_token"')
  })

  it('compares configured tokens case-sensitively', () => {
    const restricted = compile([{ bearerAuth: [] }], ['Secret'])
    expect(outcome(restricted, bearer('Bearer secret'))?.status).toBe(401)
  })

  it('checks an oauth2 scheme as a bearer token', () => {
    const oauth = compile([{ oauth: ['plants:write'] }], ['secret'])
    expect(outcome(oauth, bearer('Bearer secret'))).toBeUndefined()
    expect(outcome(oauth, bearer('Bearer other'))?.headers['www-authenticate']).toBe('Bearer error="invalid_token"')
  })
})

describe('basic authentication', () => {
  const check = compile([{ basicAuth: [] }])

  it('accepts well-formed base64 of user:password', () => {
    expect(outcome(check, basic('aladdin:open sesame'))).toBeUndefined()
  })

  it('reads the Basic scheme name case-insensitively', () => {
    expect(outcome(check, bearer(`basic ${Buffer.from('u:p').toString('base64')}`))).toBeUndefined()
  })

  it('refuses base64 of a value without a colon', () => {
    const error = outcome(check, basic('aladdin'))
    expect(error?.status).toBe(401)
    expect(error?.headers['www-authenticate']).toBe('Basic realm="plant-store-mock"')
  })

  it('refuses credentials that are not base64', () => {
    expect(outcome(check, bearer('Basic user:password'))?.status).toBe(401)
  })

  it('refuses base64 whose length is not a multiple of four', () => {
    // "dXNlcjpwYXN" is "dXNlcjpwYXNz" (user:pass) cut short: not well-formed base64 (RFC 4648 §3.2, RFC 7617 §2).
    expect(outcome(check, bearer('Basic dXNlcjpwYXN'))?.status).toBe(401)
  })

  it('refuses an empty Basic credential', () => {
    expect(outcome(check, bearer('Basic '))?.status).toBe(401)
  })

  it('refuses a request without credentials with a Basic challenge', () => {
    expect(outcome(check, {})?.headers['www-authenticate']).toBe('Basic realm="plant-store-mock"')
  })
})

describe('API keys', () => {
  it('reads a header key by its name case-insensitively', () => {
    expect(outcome(compile([{ headerKey: [] }]), { headers: { 'x-api-key': 'k' } })).toBeUndefined()
  })

  it('reads a query key', () => {
    expect(outcome(compile([{ queryKey: [] }]), { query: 'api_key=k' })).toBeUndefined()
  })

  it('reads a cookie key', () => {
    expect(outcome(compile([{ cookieKey: [] }]), { cookies: { session: 'k' } })).toBeUndefined()
  })

  it('refuses a key sent in another place than the scheme says', () => {
    expect(outcome(compile([{ queryKey: [] }]), { headers: { api_key: 'k' } })?.status).toBe(401)
    expect(outcome(compile([{ headerKey: [] }]), { query: 'X-API-Key=k' })?.status).toBe(401)
  })

  it('refuses an empty key', () => {
    expect(outcome(compile([{ queryKey: [] }]), { query: 'api_key=' })?.status).toBe(401)
  })

  it('challenges with where and under which name the key goes', () => {
    const error = outcome(compile([{ headerKey: [] }]), {})
    expect(error?.headers['www-authenticate']).toBe('ApiKey realm="plant-store-mock", in="header", name="X-API-Key"')
    expect(error?.message).toContain('X-API-Key')
  })

  it('accepts only configured keys when tokens are given', () => {
    const check = compile([{ headerKey: [] }], ['key-1'])
    expect(outcome(check, { headers: { 'x-api-key': 'key-1' } })).toBeUndefined()
    expect(outcome(check, { headers: { 'x-api-key': 'key-2' } })?.status).toBe(401)
  })
})

describe('alternatives and combinations', () => {
  it('passes when any one of several alternatives passes', () => {
    const check = compile([{ bearerAuth: [] }, { headerKey: [] }])
    expect(outcome(check, bearer('Bearer t'))).toBeUndefined()
    expect(outcome(check, { headers: { 'x-api-key': 'k' } })).toBeUndefined()
  })

  it('challenges with every alternative when none passes', () => {
    const error = outcome(compile([{ bearerAuth: [] }, { headerKey: [] }]), {})
    expect(error?.status).toBe(401)
    const challenge = error?.headers['www-authenticate'] ?? ''
    expect(challenge).toContain('Bearer')
    expect(challenge).toContain('ApiKey')
  })

  it('needs every scheme of one requirement object', () => {
    const check = compile([{ bearerAuth: [], headerKey: [] }])
    expect(outcome(check, bearer('Bearer t'))?.status).toBe(401)
    expect(outcome(check, { headers: { 'x-api-key': 'k' } })?.status).toBe(401)
    expect(outcome(check, { headers: { authorization: 'Bearer t', 'x-api-key': 'k' } })).toBeUndefined()
  })

  it('names the scheme still missing when a combination is half met, and challenges with every scheme of it (#30)', () => {
    const error = outcome(compile([{ bearerAuth: [], headerKey: [] }]), bearer('Bearer t'))
    expect(error?.message).toContain('X-API-Key')
    // RFC 9110 §11.6.1: one challenge for each scheme the requirement needs.
    expect(error?.headers['www-authenticate']).toBe(
      'Bearer, ApiKey realm="plant-store-mock", in="header", name="X-API-Key"',
    )
  })
})
