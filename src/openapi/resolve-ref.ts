import { startupErrors } from '../errors/index.js'

/** A node of the description and the JSON pointer where it lives (schemas are compiled by pointer). */
export interface Located<T = any> {
  node: T
  pointer: string
}

export function pointerOf(...tokens: string[]): string {
  return tokens.map((t) => `/${t.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('')
}

/** Follows `$ref`s of non-schema objects (parameters, bodies, responses, examples) to their target. */
export function resolveRef(document: unknown, located: Located): Located {
  let { node, pointer } = located
  for (let hops = 0; node && typeof node === 'object' && typeof node.$ref === 'string'; hops++) {
    if (hops > 32 || !node.$ref.startsWith('#')) {
      throw startupErrors.refCannotBeFollowed(node.$ref, pointer || '/')
    }
    pointer = node.$ref.slice(1)
    node = nodeAt(document, pointer)
    if (node === undefined) throw startupErrors.refPointsAtNothing(`#${pointer}`)
  }
  return { node, pointer }
}

/** The keys of a JSON pointer: `/paths/~1plants` → `['paths', '/plants']` (RFC 6901 escapes undone). */
export function pointerTokens(pointer: string): string[] {
  return pointer === '' ? [] : pointer.slice(1).split('/').map(unescapeToken)
}

function unescapeToken(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~')
}

/**
 * The node at a JSON pointer (`/components/schemas/Plant`), or `undefined`. A `$ref`'s pointer is a
 * URI fragment, so each token is percent-decoded too.
 */
export function nodeAt(document: unknown, pointer: string): any {
  let node: any = document
  for (const token of pointer.split('/').slice(1)) {
    if (node === null || typeof node !== 'object') return undefined
    node = node[unescapeToken(percentDecoded(token))]
  }
  return node
}

/** A token percent-decoded where it is a URI fragment's; as written where it cannot be (`50%off` in a path key). */
function percentDecoded(token: string): string {
  if (!token.includes('%')) return token
  try {
    return decodeURIComponent(token)
  } catch {
    return token
  }
}

/** A schema with its `$ref` chain followed (schemas keep their refs for Ajv; some start-up code needs the target). */
export function derefSchema(document: unknown, schema: any): any {
  for (let hops = 0; typeof schema?.$ref === 'string' && schema.$ref.startsWith('#') && hops < 32; hops++) {
    schema = nodeAt(document, schema.$ref.slice(1))
  }
  return schema
}
