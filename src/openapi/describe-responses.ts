import { startupErrors } from '../errors/index.js'
import { describeContent } from './describe-content.js'
import { shapeOf } from './describe-parameters.js'
import type { HeaderDescription, ResponseDescription } from './operations.js'
import { type Located, derefSchema, pointerOf, resolveRef } from './resolve-ref.js'

export function describeResponse(document: any, code: string, located: Located): ResponseDescription {
  if (!/^([1-5](\d\d|XX)|default)$/.test(code)) {
    throw startupErrors.responseCode(code, located.pointer)
  }
  const { node, pointer } = resolveRef(document, located)
  return {
    code,
    content: describeContent(document, node?.content, `${pointer}/content`),
    headers: describeHeaders(document, node?.headers, `${pointer}/headers`),
  }
}

function describeHeaders(
  document: any,
  headers: Record<string, any> | undefined,
  pointer: string,
): HeaderDescription[] {
  if (typeof headers !== 'object' || headers === null) return []
  return Object.entries(headers).map(([name, raw]) => {
    const { node, pointer: at } = resolveRef(document, { node: raw, pointer: `${pointer}${pointerOf(name)}` })
    const declared = { name, required: node?.required === true, explode: node?.explode === true }
    const [media] = node?.schema === undefined ? describeContent(document, node?.content, `${at}/content`) : []
    if (media)
      return {
        ...declared,
        schemaPointer: media.schemaPointer,
        example: media.examples[0]?.value,
        shape: 'primitive',
        mediaType: media.mediaType,
      }
    const schema = node?.schema === undefined ? undefined : derefSchema(document, node.schema)
    return {
      ...declared,
      schemaPointer: node?.schema ? `${at}/schema` : undefined,
      example: exampleOfHeader(document, node, at),
      shape: shapeOf(document, schema),
    }
  })
}

/** A header's `example`, else the value of the first of its `examples` (Example Objects, `$ref`s followed). */
function exampleOfHeader(document: any, node: any, pointer: string): unknown {
  if (node?.example !== undefined) return node.example
  const [name, named] =
    node?.examples && typeof node.examples === 'object' ? (Object.entries(node.examples)[0] ?? []) : []
  return named === undefined
    ? undefined
    : exampleOf(resolveRef(document, { node: named, pointer: `${pointer}${pointerOf('examples', name!)}` }).node)
}

/** An Example Object's `value`, or OpenAPI 3.2's `dataValue`. */
function exampleOf(node: any): unknown {
  return node?.value !== undefined ? node.value : node?.dataValue
}
