import { type MockError, errors, startupErrors } from '../errors/index.js'
import { isHeaderName, toHeaderValue } from '../internal/header-value.js'
import { BASE64 } from '../internal/base64.js'
import type { RequestData } from '../common/request.js'
import type { SecurityRequirement } from '../openapi/operations.js'
import type { PlatformCrypto } from '../common/platform.js'
import { base64Bytes, utf8Text } from '../internal/bytes.js'

/** A credential check: `undefined` when it passes, else the 401 that says why it failed. */
type SchemeCheck = (request: RequestData) => MockError | undefined

/** Compiled security of one operation: alternatives, each a list of schemes that must all pass. */
export interface SecurityCheck {
  alternatives: SchemeCheck[][]
  challenge: string
}

export interface SecurityOptions {
  /** Accepted tokens and API keys; empty accepts any non-empty credential. */
  tokens: readonly string[]
  /** Hashes the tokens, to compare them in constant time. */
  crypto: Pick<PlatformCrypto, 'sha256' | 'equalDigests'>
  /**
   * Told once per scheme that cannot be checked (undeclared, `mutualTLS`, an unknown type): such a
   * scheme counts as met. Without it, such a scheme stops start-up.
   */
  warnUncheckable?: (scheme: string, message: string) => void
  /** Where the requirements are, for messages: `#/paths/~1plants/post/security`. */
  pointer?: string
}

/**
 * Builds the check once at start-up. `undefined` means the operation is open: no requirement,
 * `security: []`, or an empty alternative `{}` (which makes credentials optional).
 */
export function compileSecurity(
  requirements: readonly SecurityRequirement[],
  schemes: Record<string, any>,
  { tokens, crypto, warnUncheckable, pointer = '#/security' }: SecurityOptions,
): SecurityCheck | undefined {
  const accept = createTokenMatcher(tokens, crypto)
  // Compiled first, so that an undeclared scheme name is reported even where credentials are optional.
  const alternatives = requirements.map((requirement, index) =>
    Object.keys(requirement).flatMap((name) => {
      const check = compileScheme(name, schemes[name], accept)
      if (typeof check === 'function') return [check]
      if (!warnUncheckable) throw startupErrors.uncheckableSecurity(check.problem)
      warnUncheckable(
        name,
        `${check.problem} (named at ${pointer}/${index}); it is not checked: requests count as meeting it.`,
      )
      return []
    }),
  )
  if (alternatives.length === 0 || alternatives.some((checks) => checks.length === 0)) return undefined
  const challenges = new Set(requirements.flatMap((r) => Object.keys(r).map((name) => challengeFor(schemes[name]))))
  return { alternatives, challenge: [...challenges].filter(Boolean).join(', ') || 'Bearer' }
}

/**
 * `undefined` if any alternative passes; otherwise the 401 with the first alternative's reason,
 * returned rather than thrown: a throw and the rejections it passes through cost a refused request
 * some 15k instructions (#19).
 */
export function securityFailure(check: SecurityCheck, request: RequestData): MockError | undefined {
  let firstFailure: MockError | undefined
  for (const schemes of check.alternatives) {
    const failure = firstFailureOf(schemes, request)
    if (!failure) return undefined
    firstFailure ??= failure
  }
  // One scheme: its own challenge; several, in one requirement or in alternatives: every scheme's,
  // as RFC 9110 §11.6.1 allows (#30): `Bearer, Basic realm="..."` for an OAuth2 + Basic requirement.
  if (check.alternatives.length === 1 && check.alternatives[0]!.length === 1) return firstFailure
  return errors.unauthorized(firstFailure!.message, check.challenge)
}

function firstFailureOf(schemes: SchemeCheck[], request: RequestData): MockError | undefined {
  for (const scheme of schemes) {
    const failure = scheme(request)
    if (failure) return failure
  }
  return undefined
}

/** A check for the scheme, or why there can be none. */
function compileScheme(name: string, scheme: any, accept: TokenMatcher): SchemeCheck | { problem: string } {
  if (!scheme)
    return { problem: `The security requirement names "${name}", which components.securitySchemes does not declare` }
  if (scheme.type === 'mutualTLS')
    return { problem: `The security scheme "${name}" is mutualTLS, which a mock served over plain HTTP cannot check` }
  if (scheme.type === 'oauth2' || scheme.type === 'openIdConnect') return bearerCheck(accept)
  if (scheme.type === 'apiKey' && scheme.in === 'header' && !isHeaderName(String(scheme.name))) {
    return {
      problem: `The security scheme "${name}" is an API key in the header ${JSON.stringify(String(scheme.name))}, which is not a name HTTP can carry (no client can send it)`,
    }
  }
  if (scheme.type === 'apiKey') return apiKeyCheck(scheme, accept)
  if (scheme.type === 'http' && String(scheme.scheme).toLowerCase() === 'bearer') return bearerCheck(accept)
  if (scheme.type === 'http' && String(scheme.scheme).toLowerCase() === 'basic') return basicCheck()
  if (scheme.type === 'http' && scheme.scheme) return authorizationSchemeCheck(String(scheme.scheme))
  return { problem: `The security scheme "${name}" has type "${scheme.type}", which the mock cannot check` }
}

function bearerCheck(accept: TokenMatcher): SchemeCheck {
  return function checkBearer(request) {
    const token = credentialOf(request.header('authorization'), 'bearer')
    if (token === undefined) return errors.missingBearer()
    if (token === '') return errors.emptyBearerToken()
    if (!accept(token)) return errors.tokenRejected()
    return undefined
  }
}

function basicCheck(): SchemeCheck {
  const challenge = 'Basic realm="plant-store-mock"'
  return function checkBasic(request) {
    const encoded = credentialOf(request.header('authorization'), 'basic')
    if (encoded === undefined) return errors.missingBasic(challenge)
    const decoded = BASE64.test(encoded) ? utf8Text(base64Bytes(encoded)) : ''
    if (!decoded.includes(':')) return errors.badBasicCredentials(challenge)
    return undefined
  }
}

function apiKeyCheck(scheme: any, accept: TokenMatcher): SchemeCheck {
  const name = String(scheme.name)
  const where = scheme.in as 'header' | 'query' | 'cookie'
  const read =
    where === 'header'
      ? (r: RequestData) => r.header(name.toLowerCase())
      : where === 'query'
        ? (r: RequestData) => r.query().get(name) ?? undefined
        : (r: RequestData) => r.cookie(name)
  const challenge = toHeaderValue(`ApiKey realm="plant-store-mock", in="${where}", name="${name}"`)
  return function checkApiKey(request) {
    const key = read(request)
    if (!key) return errors.missingApiKey(where, name, challenge)
    if (!accept(key)) return errors.apiKeyRejected(where, name, challenge)
    return undefined
  }
}

function authorizationSchemeCheck(schemeName: string): SchemeCheck {
  return function checkAuthorizationScheme(request) {
    const credential = credentialOf(request.header('authorization'), schemeName.toLowerCase())
    if (!credential) return errors.missingAuthorization(schemeName, toHeaderValue(schemeName))
    return undefined
  }
}

function challengeFor(scheme: any): string {
  if (scheme?.type === 'http' && String(scheme.scheme).toLowerCase() === 'basic')
    return 'Basic realm="plant-store-mock"'
  if (scheme?.type === 'apiKey')
    return toHeaderValue(`ApiKey realm="plant-store-mock", in="${scheme.in}", name="${scheme.name}"`)
  if (scheme?.type === 'http' && String(scheme.scheme).toLowerCase() !== 'bearer')
    return toHeaderValue(String(scheme.scheme))
  return 'Bearer'
}

/**
 * The credential after `<scheme> ` in an Authorization header (scheme names are case-insensitive,
 * RFC 9110 §11.1); `undefined` when the header is absent or uses another scheme.
 */
function credentialOf(header: string | undefined, scheme: string): string | undefined {
  if (header === undefined) return undefined
  const space = header.indexOf(' ')
  const name = space === -1 ? header : header.slice(0, space)
  if (name.toLowerCase() !== scheme) return undefined
  return space === -1 ? '' : header.slice(space + 1).trim()
}

export type TokenMatcher = (token: string) => boolean

/** Compares digests in constant time, against every configured token, so timing tells nothing. */
export function createTokenMatcher(
  tokens: readonly string[],
  crypto: Pick<PlatformCrypto, 'sha256' | 'equalDigests'>,
): TokenMatcher {
  if (tokens.length === 0) return () => true
  const digests = tokens.map((token) => crypto.sha256(token))
  return (token) => {
    const candidate = crypto.sha256(token)
    let matched = false
    for (const accepted of digests) matched = crypto.equalDigests(accepted, candidate) || matched
    return matched
  }
}
