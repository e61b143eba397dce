import type { MediaTypeDescription } from './operations.js'
import { type Located, pointerOf, resolveRef } from './resolve-ref.js'

export function describeRequestBody(document: any, located: Located) {
  const { node, pointer } = resolveRef(document, located)
  return { required: node.required === true, content: describeContent(document, node.content, `${pointer}/content`) }
}

export function describeContent(
  document: any,
  content: Record<string, any> | undefined,
  pointer: string,
): MediaTypeDescription[] {
  return Object.entries(content ?? {}).map(([mediaType, media]) => {
    const at = `${pointer}${pointerOf(mediaType)}`
    return {
      // An empty key (spoonacular.com's request bodies) names no type: read as any.
      mediaType: mediaType.trim() === '' ? '*/*' : mediaType,
      schemaPointer: media?.schema ? `${at}/schema` : undefined,
      examples: describeExamples(document, media ?? {}, at),
    }
  })
}

function describeExamples(document: any, media: Record<string, any>, pointer: string) {
  const examples: Array<{ name: string; value: unknown }> = []
  if (media.example !== undefined) examples.push({ name: 'default', value: media.example })
  for (const [name, raw] of Object.entries(media.examples ?? {})) {
    const { node } = resolveRef(document, { node: raw, pointer: `${pointer}${pointerOf('examples', name)}` })
    // externalValue would mean a download; only inline values are served.
    if (node && 'value' in node) examples.push({ name, value: node.value })
  }
  return examples
}
