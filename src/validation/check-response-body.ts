import type { Violation } from '../errors/index.js'
import { nodeAt } from '../openapi/resolve-ref.js'
import type { ValidateFunction } from 'ajv'
import { findUndeclaredFields } from './undeclared-fields.js'
import { toViolations } from './violations.js'

/** The schema a body is checked against. */
export interface BodySchema {
  schemaPointer?: string
  validate?: ValidateFunction
}

/** How a body breaks its response schema, without the undeclared-field walk (see `bodyProblems`). */
export function schemaProblems(response: BodySchema, value: unknown): string[] {
  return schemaViolations(response, value).map((v) => `${v.path} ${v.message}`)
}

/** The same, as violations. */
export function schemaViolations(response: BodySchema, value: unknown): Violation[] {
  if (!response.validate || response.validate(value)) return []
  return toViolations('body', response.validate.errors)
}

/** Every way a body breaks its response schema, including fields the schema does not declare, as sentences. */
export function bodyProblems(
  context: { document: unknown },
  response: BodySchema,
  value: unknown,
  /** JSON pointers whose values are only known per request (template slots): not judged now. */
  unknownAt: readonly string[] = [],
): string[] {
  return bodyViolations(context, response, value, unknownAt).map((v) => `${v.path} ${v.message}`)
}

/** Every way a body breaks its response schema, including fields the schema does not declare (see `bodyProblems`). */
export function bodyViolations(
  context: { document: unknown },
  response: BodySchema,
  value: unknown,
  unknownAt: readonly string[] = [],
): Violation[] {
  if (!response.validate) return []
  const errors = response.validate(value)
    ? []
    : (response.validate.errors ?? []).filter((e) => !unknownAt.some((slot) => isAtOrUnder(e.instancePath, slot)))
  const violations = toViolations('body', errors)
  const undeclared = findUndeclaredFields(context.document, schemaNodeOf(context.document, response), value)
  // A closed schema's `additionalProperties: false` already names the field, in the same words.
  const told = new Set(violations.map((v) => `${v.path} ${v.message}`))
  for (const path of undeclared) {
    const violation = { path: `body${path}`, message: 'is not declared by the schema' }
    if (!told.has(`${violation.path} ${violation.message}`)) violations.push(violation)
  }
  return violations
}

/** The schema a body is checked against, found once per declared body (the pointer was split and unescaped on every answer). */
function schemaNodeOf(document: unknown, response: BodySchema): unknown {
  let node = schemaNodes.get(response)
  if (node === undefined) schemaNodes.set(response, (node = nodeAt(document, response.schemaPointer!)))
  return node
}

const schemaNodes = new WeakMap<BodySchema, unknown>()

function isAtOrUnder(pointer: string, slot: string): boolean {
  return pointer === slot || pointer.startsWith(`${slot}/`)
}
