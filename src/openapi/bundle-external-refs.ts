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

/**
 * Every `$ref` string of the document, found with a stack of its own: no depth overflows it.
 * @note Not `walkSchemas`: a `$ref` may stand for a parameter, a response, a path item or an Example
 * Object (under `examples`), not only for a schema, so every object is entered except an `example`'s
 * value, which is data.
 */
export function collectRefs(root: unknown): string[] {
  const refs: string[] = []
  const stack: unknown[] = [root]
  while (stack.length) {
    const node = stack.pop()
    if (node === null || typeof node !== 'object') continue
    if (Array.isArray(node)) {
      for (const item of node) stack.push(item)
      continue
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') refs.push(value)
      else if (key !== 'example') stack.push(value)
    }
  }
  return refs
}
