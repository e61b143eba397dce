import { dirname, resolve, sep } from 'pathe'
import type { Files } from '../common/files.js'
import { startupErrors } from '../errors/index.js'
import { checkRegularFile } from './check-shape.js'
import { nodeAt } from './resolve-ref.js'

/**
 * Brings `$ref`'d files into the description, so that every `$ref` points inside it. Most
 * descriptions have no external `$ref`: they are only checked, and the bundler (a fifth of the
 * mock's import time) is not even loaded (#4).
 */
export async function bundleExternalRefs(
  path: string,
  parsed: Record<string, any>,
  allowedOutside: readonly string[],
  files: Files,
): Promise<unknown> {
  if (typeof parsed.$self === 'string') localiseSelfRefs(parsed, parsed.$self)
  const refs = collectRefs(parsed)
  if (refs.every((ref) => ref.startsWith('#'))) {
    const dangling = refs.find((ref) => nodeAt(parsed, ref.slice(1)) === undefined)
    if (dangling) throw startupErrors.unresolvedRef(path, `"${dangling}" points at nothing`)
    return parsed
  }
  const { default: $RefParser } = await import('@apidevtools/json-schema-ref-parser')
  const roots = await Promise.all(
    [dirname(path), ...allowedOutside].map((root) => files.realPath(root).catch(() => resolve(root))),
  )
  // The bundler wraps a resolver's error in one of its own, without the message: the reason is kept here.
  let refused: string | undefined
  const read = (file: { url: string }) =>
    readReferencedFile(file.url, roots, files).catch((error: Error) => {
      refused ??= error.message
      throw error
    })
  try {
    // Only local files may be referenced: the mock never downloads anything at run time.
    return await $RefParser.bundle(path, parsed, {
      resolve: { http: false, file: { order: 100, canRead: true, read } },
    } as never)
  } catch (error) {
    throw startupErrors.unresolvedRef(path, refused ?? (error as Error).message)
  }
}

/**
 * A file a `$ref` names. Descriptions come from other teams and from the internet: a `$ref` to
 * `/etc/passwd` or `/proc/self/environ` would be served back in a 200 body, and one to `/dev/zero`
 * read forever. So a `$ref`'d file must lie inside the description's own folder tree (or a folder
 * given with `--allow-ref-outside`), symbolic links resolved, and be a regular file of bounded size.
 */
async function readReferencedFile(url: string, roots: readonly string[], files: Files): Promise<Uint8Array> {
  if (/^[a-z][a-z0-9+.-]+:/i.test(url) && !url.startsWith('file:'))
    throw new Error(`${url} is not a local file; remote $refs are not followed`)
  const path = url.startsWith('file:') ? files.pathOfFileUrl(url) : decodeURI(url)
  const real = await files.realPath(path).catch(() => {
    throw new Error(`${path} does not exist`)
  })
  if (!roots.some((root) => real === root || real.startsWith(root.endsWith(sep) ? root : `${root}${sep}`))) {
    throw new Error(
      `${path} lies outside the description's folder (${roots[0]}); allow it with --allow-ref-outside <folder>`,
    )
  }
  await checkRegularFile(real, files)
  return files.readBytes(real)
}

/** Every `$ref` string of the document (`eachRef`). */
export function collectRefs(root: unknown): string[] {
  const refs: string[] = []
  eachRef(root, (_node, ref) => refs.push(ref))
  return refs
}

/**
 * OpenAPI 3.2's `$self` is the description's own URI, the base its `$ref`s resolve against (#31 §1).
 * A `$ref` whose URL is `$self` points inside the description (`#…`); one below `$self`'s folder
 * names the file at that place below the description's own folder. Any other URL stays remote, and
 * is refused as ever; a relative `$ref` names the same file either way, and is left as written. A
 * relative `$self` resolves against where the file was read from, which `$ref`s resolve against already.
 */
function localiseSelfRefs(document: Record<string, any>, self: string): void {
  let base: URL
  let folder: string
  try {
    base = new URL(self)
    // A URL that cannot be a base (`urn:…`) has no folder, and throws here: nothing is below it.
    folder = new URL('.', base).href
  } catch {
    return
  }
  base.hash = ''
  const own = base.href
  eachRef(document, (node, ref) => {
    if (!ABSOLUTE.test(ref)) return
    let target: URL
    try {
      target = new URL(ref, base)
    } catch {
      return
    }
    const hash = ref.indexOf('#')
    const fragment = hash === -1 ? '' : ref.slice(hash)
    target.hash = ''
    const where = target.href
    if (where === own) node.$ref = fragment || '#'
    else if (where.startsWith(folder)) node.$ref = `./${where.slice(folder.length)}${fragment}`
  })
}

/** A `$ref` that is a URL (`https://…`) or an absolute path (`/…`): the ones `$self` changes. */
const ABSOLUTE = /^(?:[a-z][a-z0-9+.-]*:|\/)/i

/**
 * Calls `visit` with every object holding a string `$ref`, found with a stack of its own: no depth
 * overflows it.
 * @note Not `walkSchemas`: a `$ref` may stand for a parameter, a response, a path item or an Example
 * Object (under `examples`), not only for a schema, so every object is entered except an `example`'s
 * value, which is data.
 */
function eachRef(root: unknown, visit: (node: Record<string, any>, ref: string) => void): void {
  const stack: unknown[] = [root]
  while (stack.length) {
    const node = stack.pop()
    if (node === null || typeof node !== 'object') continue
    if (Array.isArray(node)) {
      for (const item of node) stack.push(item)
      continue
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') visit(node as Record<string, any>, value)
      else if (key !== 'example') stack.push(value)
    }
  }
}
