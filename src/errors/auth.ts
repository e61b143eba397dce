import { MockError } from './mock-error.js'

/** A 401 with its challenge: the reason a credential was refused, as `checkSecurity` finds it. */
const refuse = (message: string, challenge: string) =>
  new MockError(401, 'unauthorized', message, { headers: { 'www-authenticate': challenge } })

/** Why a request's credentials do not meet the operation's security (401). `challenge` is the scheme's own. */
export const authErrors = {
  missingBearer: () => refuse('This operation needs an "Authorization: Bearer <token>" header.', 'Bearer'),
  emptyBearerToken: () => refuse('The bearer token is empty.', 'Bearer error="invalid_request"'),
  tokenRejected: () => refuse('The bearer token is not accepted.', 'Bearer error="invalid_token"'),
  missingBasic: (challenge: string) =>
    refuse('This operation needs an "Authorization: Basic <credentials>" header.', challenge),
  badBasicCredentials: (challenge: string) =>
    refuse('The basic credentials are not base64 of "user:password".', challenge),
  missingApiKey: (where: string, name: string, challenge: string) =>
    refuse(`This operation needs an API key in the ${where} "${name}".`, challenge),
  apiKeyRejected: (where: string, name: string, challenge: string) =>
    refuse(`The API key in the ${where} "${name}" is not accepted.`, challenge),
  missingAuthorization: (schemeName: string, challenge: string) =>
    refuse(`This operation needs an "Authorization: ${schemeName} ..." header.`, challenge),
  /** A scenario rule `unauthorized: true`: every credential is refused, as a rejected token is. */
  scenarioRefusesCredentials: (scenario: string) =>
    refuse(`The "${scenario}" scenario refuses every credential.`, 'Bearer error="invalid_token"'),
}
