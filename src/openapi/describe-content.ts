import { isPlainObject } from '../internal/plain-object.js'
import { essenceOf, isJsonType } from '../internal/media-type.js'
import type { MediaTypeDescription, PartEncoding } from './operations.js'
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
  return Object.entries(content ?? {}).map(([mediaType, raw]) => {
    // OpenAPI 3.2 lets a Media Type Object be a `$ref` (to `components/mediaTypes`): followed.
    const { node: media, pointer: at } = resolveRef(document, {
      node: raw,
      pointer: `${pointer}${pointerOf(mediaType)}`,
    })
    const described: MediaTypeDescription = {
      // An empty key (spoonacular.com's request bodies) names no type: read as any.
      mediaType: mediaType.trim() === '' ? '*/*' : mediaType,
      schemaPointer: media?.schema ? `${at}/schema` : undefined,
      itemSchemaPointer: media?.itemSchema ? `${at}/itemSchema` : undefined,
      examples: describeExamples(document, media ?? {}, at, mediaType),
    }
    // OpenAPI 3.2's positional multipart encodings, only where declared: a 3.0 or 3.1 media type carries none.
    if (Array.isArray(media?.prefixEncoding))
      described.prefixEncoding = media.prefixEncoding.map((entry: unknown) => describeEncoding(entry))
    if (isPlainObject(media?.itemEncoding)) described.itemEncoding = describeEncoding(media.itemEncoding)
    return described
  })
}

/**
 * An Encoding Object as the mock reads it: the Content-Type of the part it stands for, as declared
 * (a list such as `image/png, image/jpeg` kept as written).
 */
function describeEncoding(entry: unknown): PartEncoding {
  return isPlainObject(entry) && typeof entry.contentType === 'string' ? { contentType: entry.contentType } : {}
}

function describeExamples(document: any, media: Record<string, any>, pointer: string, mediaType: string) {
  const examples: Array<{ name: string; value: unknown }> = []
  if (media.example !== undefined) examples.push({ name: 'default', value: media.example })
  for (const [name, raw] of Object.entries(media.examples ?? {})) {
    const { node } = resolveRef(document, { node: raw, pointer: `${pointer}${pointerOf('examples', name)}` })
    // externalValue would mean a download; only inline values are served.
    const value = exampleValue(node, mediaType)
    if (value !== NO_VALUE) examples.push({ name, value })
  }
  return examples
}

const NO_VALUE = Symbol('no value')

/**
 * An Example Object's value: `value`, or OpenAPI 3.2's `dataValue` (the same, named for what it is),
 * else its `serializedValue` (the text as sent) read back: JSON text for a JSON media type, the text
 * itself for any other. `NO_VALUE` for one without (an `externalValue`, JSON that does not parse).
 */
function exampleValue(node: any, mediaType: string): unknown {
  if (typeof node !== 'object' || node === null) return NO_VALUE
  if ('value' in node) return node.value
  if ('dataValue' in node) return node.dataValue
  if (typeof node.serializedValue !== 'string') return NO_VALUE
  if (!isJsonType(essenceOf(mediaType))) return node.serializedValue
  try {
    return JSON.parse(node.serializedValue)
  } catch {
    return NO_VALUE
  }
}
