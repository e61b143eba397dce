import { madeBodyOf } from '../responses/made-body.js'
import type { DeclaredMedia } from '../responses/declared-responses.js'
import type { RenderContext } from '../responses/render-response.js'
import { nodeAt } from '../openapi/resolve-ref.js'
import type { CompiledStateful } from './compile-stateful.js'
import { type RecordShape, itemsSchemaOf, propertySchemaOf, shapeOf } from './record-shape.js'

/**
 * What an answer made from records looks like, per declared media type (`pipeline/data.ts`): the
 * record's shape in it, and the schema's static sample, where a required field a record lacks comes
 * from; made on first use and kept (per app, as the compiled responses are).
 */
/** What answers no JSON makes of a record: nothing to leave out or fill in. */
export const NO_SHAPES: MediaShapes = {
  record: { fields: undefined, required: [], holdsObject: true },
  base: undefined,
}

export interface MediaShapes {
  record: RecordShape
  /** The schema's static sample: where a required field the record lacks comes from. */
  base: unknown
  /** For a list: the sample of the whole answer (a wrapper's other fields). */
  wrapper?: unknown
}

/** Per declared media type, made on first use (per app, as the compiled responses are). */
const shapes = new WeakMap<DeclaredMedia, MediaShapes>()

export function shapesOf(media: DeclaredMedia, context: RenderContext): MediaShapes {
  let found = shapes.get(media)
  if (!found) {
    found = {
      record: shapeOf(context.document, nodeAt(context.document, media.schemaPointer!)),
      base: sampleOf(media, context),
    }
    shapes.set(media, found)
  }
  return found
}

/** A list's item shape: the array's items, or the items of the wrapper's array. */
export function listShapesOf(media: DeclaredMedia, stateful: CompiledStateful, context: RenderContext): MediaShapes {
  let found = shapes.get(media)
  if (!found) {
    const { document } = context
    const schema = nodeAt(document, media.schemaPointer!)
    const itemsField = stateful.list?.wrapper?.items
    const array = itemsField === undefined ? schema : propertySchemaOf(document, schema, itemsField)
    const wrapper = sampleOf(media, context)
    const sampleItems =
      itemsField === undefined ? wrapper : (wrapper as Record<string, unknown> | undefined)?.[itemsField]
    found = {
      record: shapeOf(document, itemsSchemaOf(document, array)),
      base: Array.isArray(sampleItems) ? sampleItems[0] : undefined,
      wrapper,
    }
    shapes.set(media, found)
  }
  return found
}

/** The static sample of a media type's schema, parsed; `undefined` when none can be made. */
function sampleOf(media: DeclaredMedia, context: RenderContext): unknown {
  try {
    const made = madeBodyOf('200', media, context, true)
    return made.body === undefined ? undefined : JSON.parse(made.body)
  } catch {
    return undefined
  }
}
