import type { Violation } from '../errors/index.js'
import type { HeaderDescription } from '../openapi/operations.js'
import type { HeaderContext } from './header-context.js'
import { headerValidatorOf } from './header-validators.js'

/**
 * How a fixture's headers (a `.headers.json` sidecar) break the schemas of the headers the response
 * declares, as sentences; headers it does not declare are the fixture's own, and not judged.
 */
export function fixtureHeaderProblems(
  context: HeaderContext,
  declared: readonly HeaderDescription[],
  headers: Record<string, string>,
): string[] {
  return fixtureHeaderViolations(context, declared, headers).map((v) => `${v.path} ${v.message}`)
}

/** The same, as violations (a stub's headers accepted with `"force": true` are reported with each answer). */
export function fixtureHeaderViolations(
  context: HeaderContext,
  declared: readonly HeaderDescription[],
  headers: Record<string, string>,
): Violation[] {
  const violations: Violation[] = []
  for (const header of declared) {
    const value = headers[header.name.toLowerCase()]
    if (value !== undefined) violations.push(...headerValidatorOf(context, header)(value))
  }
  return violations
}
