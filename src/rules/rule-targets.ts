import type { OperationDescription } from '../openapi/operations.js'
import { nodeAt } from '../openapi/resolve-ref.js'
import { kindOf } from '../responses/serialize-body.js'
import type { RuleReading, RuleTarget } from './read-rule.js'
import type { ScenarioTarget } from './rule.js'

/** What rules and stubs are read against: every operation (by index), and where their answers are checked. */
export interface RuleBook {
  targets: readonly RuleTarget[]
  reading: RuleReading
}

/**
 * Each operation as rules and stubs are read against it: what it answers, and what its conditions may
 * read of a request (the JSON body's schema in the request view, the path parameters it declares).
 */
export function ruleTargetsOf(
  operations: readonly (ScenarioTarget & { stateful: unknown })[],
  descriptions: readonly OperationDescription[],
  requestDocument: unknown,
): RuleTarget[] {
  return operations.map((operation, index) => {
    const description = descriptions[index]!
    const json = description.requestBody?.content.find((c) => kindOf(c.mediaType) === 'json')
    return {
      ...operation,
      description,
      stateful: operation.stateful !== undefined,
      conditions: {
        document: requestDocument,
        // A JSON body without a schema takes anything: `{}` says so to the path check.
        bodySchema: json ? (json.schemaPointer ? nodeAt(requestDocument, json.schemaPointer) : {}) : undefined,
        pathParameters: description.parameters.filter((p) => p.in === 'path').map((p) => p.name),
      },
    }
  })
}
