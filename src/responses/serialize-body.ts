import type { XMLBuilder } from 'fast-xml-parser'
import { essenceOf, isJsonType } from '../internal/media-type.js'
import { onDemand } from '../internal/on-demand.js'

/** How a media type's bodies are written: JSON text, XML, or the value itself as text. */
export type MediaKind = 'json' | 'xml' | 'text'

/** Element names of an XML body, read from the schema at start-up (`xml.name`, else the schema's name). */
export interface XmlNames {
  root: string
  /** The element of each item when the body is an array. */
  item?: string
}

export function kindOf(mediaType: string): MediaKind {
  const essence = essenceOf(mediaType)
  // Any type (`*/*` from a converted Swagger 2.0 description) or any application type is served as JSON.
  if (isJsonType(essence) || essence === '*/*' || essence === '*' || essence === 'application/*') return 'json'
  if (essence === 'application/xml' || essence === 'text/xml' || essence.endsWith('+xml')) return 'xml'
  return 'text'
}

/** Types a wildcard range is served as: one the range covers, so the client gets what it was promised. */
const RANGE_TYPES: Record<string, string> = {
  text: 'text/plain',
  image: 'image/png',
  audio: 'audio/mpeg',
  video: 'video/mp4',
  font: 'font/woff2',
}

/**
 * What `Content-Type` says for a declared media type: itself, or for a range a concrete type it
 * covers (`*\/*` and `application/*` → JSON, `image/*` → `image/png`, `text/*` → `text/plain`).
 */
export function contentTypeFor(mediaType: string): string {
  if (!mediaType.includes('*')) return mediaType
  const type = essenceOf(mediaType).split('/')[0]!
  if (kindOf(mediaType) === 'json') return 'application/json'
  return RANGE_TYPES[type] ?? `${type}/octet-stream`
}

let builder: XMLBuilder | undefined

/** fast-xml-parser, imported on demand (a chunk of its own in a browser). */
const fastXmlParser = onDemand('fast-xml-parser', () => import('fast-xml-parser'))

/**
 * Loads the XML writer. The engine calls it at start-up only when a response declares an XML media
 * type: most descriptions have none, and fast-xml-parser was a quarter of the mock's import time (#4).
 */
export async function loadXmlSupport(): Promise<void> {
  const { XMLBuilder } = await fastXmlParser.load()
  builder ??= new XMLBuilder({ format: false, suppressEmptyNode: false })
}

/**
 * The bytes of a body value for its media kind, or `undefined` when the kind cannot carry it (an
 * object for `text/plain`). An XML example written as a string is the document itself.
 */
export function serializeBody(kind: MediaKind, value: unknown, xml: XmlNames = { root: 'root' }): string | undefined {
  if (kind === 'json') return JSON.stringify(value)
  if (typeof value === 'string') return value
  if (kind === 'text') return typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined
  const content = Array.isArray(value) ? { [xml.item ?? 'item']: value } : value
  if (!builder) throw new Error('XML support was not loaded (loadXmlSupport) before an XML body was written.')
  return `<?xml version="1.0" encoding="UTF-8"?>${builder.build({ [xml.root]: content })}`
}
