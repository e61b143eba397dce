import type { Files } from '../common/files.js'
import { startupErrors } from '../errors/index.js'

/** Largest file a description or one of its `$ref`s may be. */
const MAX_DESCRIPTION_BYTES = 256 * 1024 * 1024

/** Refuses what is not a regular file of bounded size: a device, a FIFO, a directory would never end or never start. */
export async function checkRegularFile(path: string, files: Files): Promise<void> {
  const info = await files.stat(path)
  if (info.kind !== 'file') throw new Error(`${path} is not a regular file`)
  if (info.size > MAX_DESCRIPTION_BYTES) throw new Error(`${path} is larger than ${MAX_DESCRIPTION_BYTES} bytes`)
}

/** Deepest nesting of objects and arrays a description may have; far beyond any real one. */
const MAX_DESCRIPTION_DEPTH = 1000

/**
 * Refuses, with one paragraph, what no walk of the description could survive: an object inside
 * itself (a YAML anchor used within its own value) and nesting deeper than MAX_DESCRIPTION_DEPTH
 * (both printed a raw stack overflow before, #12). One pass with a stack of its own.
 */
export function checkShape(path: string, root: unknown): void {
  const onPath = new Set<object>()
  const stack: Array<{ node: object; pointer: string; depth: number; leaving?: boolean }> = []
  if (typeof root === 'object' && root !== null) stack.push({ node: root, pointer: '', depth: 0 })
  while (stack.length) {
    const frame = stack.pop()!
    if (frame.leaving) {
      onPath.delete(frame.node)
      continue
    }
    if (onPath.has(frame.node)) throw startupErrors.descriptionSelfContaining(path, frame.pointer)
    if (frame.depth > MAX_DESCRIPTION_DEPTH)
      throw startupErrors.descriptionTooDeep(path, MAX_DESCRIPTION_DEPTH, frame.pointer.slice(0, 200))
    onPath.add(frame.node)
    stack.push({ ...frame, leaving: true })
    for (const [key, value] of Object.entries(frame.node)) {
      if (typeof value === 'object' && value !== null)
        stack.push({
          node: value,
          pointer: frame.depth < 50 ? `${frame.pointer}/${key}` : frame.pointer,
          depth: frame.depth + 1,
        })
    }
  }
}
