/** The value at a path of property names and array indexes, or `undefined` where the path leaves objects. */
export function valueAt(root: unknown, tokens: string[]): unknown {
  let node = root
  for (const token of tokens) {
    if (node === null || typeof node !== 'object') return undefined
    node = (node as Record<string, unknown>)[token]
  }
  return node
}
