/**
 * How users name an operation in scenarios, stubs, webhook bindings and proxy options: its
 * operationId, or `METHOD /path` as the description writes the path.
 */
export function isOperationNamed(operation: { id: string; method: string; path: string }, name: string): boolean {
  return operation.id === name || `${operation.method} ${operation.path}` === name
}
