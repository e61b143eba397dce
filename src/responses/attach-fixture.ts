import { startupErrors } from '../errors/index.js'
import type { OperationDescription } from '../openapi/operations.js'
import { essenceOf } from '../internal/media-type.js'
import { bodyProblems } from '../validation/check-response-body.js'
import type { ResponseCompileContext } from './compile-responses.js'
import {
  type DeclaredMedia,
  type DeclaredResponse,
  type StaticBody,
  type StaticStream,
  mediaOf,
} from './declared-responses.js'
import { fixtureHeaderProblems } from './fixture-header-problems.js'
import type { Fixture, StreamFixture } from './fixtures.js'
import { compileTemplate } from './templates.js'

/**
 * Puts a fixture among the bodies of the media type it serves, checked against that media type's
 * schema: a JSON fixture under the response's JSON media type, a stream fixture under its
 * sequential one (each item against the item schema), a file (`200.png`) under the media type its
 * extension names. Fixtures come before the description's examples, in file order.
 */
export function attachFixture(
  context: ResponseCompileContext,
  operation: OperationDescription,
  declared: DeclaredResponse[],
  fixture: Fixture,
): void {
  const found = declared.find((r) => r.code === fixture.code)
  if (!found) {
    throw startupErrors.fixtureUnknownStatus(
      fixture.file,
      fixture.code,
      operation.id,
      declared.map((r) => r.code),
    )
  }
  if (!found.mediaType) throw startupErrors.fixtureNoContent(fixture.file, fixture.code, operation.id)
  const headers = fixtureHeaders(context, operation, found, fixture)
  const base = { name: fixture.name, origin: 'fixture' as const, headers }
  if (fixture.stream) {
    const media = mediaOf(found).find((m) => m.sequence)
    if (!media) throw noMedia(fixture, operation, found, 'a stream of items')
    return addBody(media, { ...base, json: '', stream: streamBody(context, operation, fixture, media, fixture.stream) })
  }
  if (fixture.content) {
    const { mediaType, bytes } = fixture.content
    const media = mediaOf(found).find((m) => covers(m.mediaType, mediaType))
    if (!media) throw noMedia(fixture, operation, found, mediaType)
    const problem = sizeProblem(media, bytes.byteLength)
    if (problem) throw startupErrors.fixtureMismatch(fixture.file, fixture.code, operation.id, [problem])
    // Under a range (`image/*`), the file says which type it is.
    const contentType = media.mediaType.includes('*') ? mediaType : undefined
    // A text or XML media type is written as text (its `Content-Type` has a charset); any other as bytes.
    if (media.kind !== 'json' && !media.binary && !media.sequence) {
      return addBody(media, { ...base, json: new TextDecoder().decode(bytes), contentType })
    }
    return addBody(media, { ...base, json: '', bytes, contentType })
  }
  const response = mediaOf(found).find((m) => m.kind === 'json')
  if (!response)
    throw startupErrors.fixtureNoJsonMedia(
      fixture.file,
      fixture.code,
      operation.id,
      mediaOf(found).map((m) => m.mediaType),
    )
  const template = compileTemplate(
    fixture.value,
    `The fixture ${fixture.file}`,
    { document: context.requestDocument ?? context.document, operation },
    fixture.callback !== undefined,
  )
  const problems = bodyProblems(context, response, fixture.value, template?.slots)
  if (problems.length) {
    throw startupErrors.fixtureMismatch(fixture.file, fixture.code, operation.id, problems)
  }
  addBody(response, { ...base, json: JSON.stringify(fixture.value), template })
}

/** Fixtures come before the description's examples; one of the same name replaces it. */
function addBody(media: DeclaredMedia, body: StaticBody): void {
  const others = [...media.bodies.values()].filter((b) => b.name !== body.name)
  const fixtures = others.filter((b) => b.origin === 'fixture')
  const examples = others.filter((b) => b.origin === 'example')
  // The map is shared with the response's own fields, so it is refilled rather than replaced.
  media.bodies.clear()
  for (const b of [...fixtures, body, ...examples]) media.bodies.set(b.name, b)
}

/** Each item of a stream fixture, checked against the item schema; an item with placeholders is filled per request. */
function streamBody(
  context: ResponseCompileContext,
  operation: OperationDescription,
  fixture: Fixture,
  media: DeclaredMedia,
  stream: StreamFixture,
): StaticStream {
  const item = media.sequence!.item
  const problems: string[] = []
  const items = stream.items.map(({ value, event, id }, index) => {
    const where = `item ${index + 1}`
    const template = compileTemplate(
      value,
      `The fixture ${fixture.file} (${where})`,
      { document: context.requestDocument ?? context.document, operation },
      false,
    )
    for (const problem of bodyProblems(context, item, value, template?.slots)) problems.push(`${where}: ${problem}`)
    return { json: JSON.stringify(value), template, event, id }
  })
  if (problems.length) throw startupErrors.fixtureMismatch(fixture.file, fixture.code, operation.id, problems)
  return { items, closing: stream.closing, templated: items.some((i) => i.template !== undefined) }
}

/** Whether a declared media type (or range: `image/*`, `*\/*`; or any octet stream) takes a file of this type. */
function covers(declared: string, fileType: string): boolean {
  const range = essenceOf(declared)
  if (range === fileType || range === '*/*' || range === 'application/octet-stream') return true
  return range.endsWith('/*') && fileType.startsWith(range.slice(0, -1))
}

/** How a file breaks its binary schema's `minLength`/`maxLength` (bytes), if it does. */
function sizeProblem(media: DeclaredMedia, bytes: number): string | undefined {
  const { minLength, maxLength } = media.binary ?? {}
  if (minLength !== undefined && bytes < minLength)
    return `it is ${bytes} bytes, under the schema's minLength ${minLength}`
  if (maxLength !== undefined && bytes > maxLength)
    return `it is ${bytes} bytes, over the schema's maxLength ${maxLength}`
  return undefined
}

function noMedia(fixture: Fixture, operation: OperationDescription, found: DeclaredResponse, wanted: string) {
  return startupErrors.fixtureNoMatchingMedia(
    fixture.file,
    wanted,
    fixture.code,
    operation.id,
    mediaOf(found).map((m) => m.mediaType),
  )
}

/**
 * A fixture's sidecar headers over the response's own, merged here so that the request path only
 * writes them. A value that breaks the schema of the header the response declares stops start-up;
 * a header it does not declare is the fixture's own (a mock may add headers), and not judged.
 */
function fixtureHeaders(
  context: ResponseCompileContext,
  operation: OperationDescription,
  found: DeclaredResponse,
  fixture: Fixture,
): Record<string, string> | undefined {
  if (!fixture.headers) return undefined
  const declared = operation.responses.find((r) => r.code === fixture.code)?.headers ?? []
  const problems = fixtureHeaderProblems(context, declared, fixture.headers)
  if (problems.length) {
    throw startupErrors.fixtureHeadersMismatch(fixture.headersFile!, fixture.code, operation.id, problems)
  }
  return { ...found.headers, ...fixture.headers }
}
