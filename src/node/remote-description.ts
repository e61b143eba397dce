import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { parse as parseYaml } from 'yaml'
import { looksLikeJson } from '../internal/yaml-parser.js'
import type { Logger } from '../common/log.js'
import { startupErrors } from '../errors/index.js'
import { collectRefs } from '../openapi/bundle-external-refs.js'

/** One file at most (GitHub's description, the largest published, is about 12 MB of JSON). */
const MAX_FILE_BYTES = 32 * 1024 * 1024
/** The description and the files its `$ref`s name, together. */
const MAX_TOTAL_BYTES = 64 * 1024 * 1024
const MAX_FILES = 200
/** Each download, from the request to its last byte. */
const FETCH_MS = 30_000
/** How often `--watch` asks whether a file changed (with its ETag or Last-Modified: a 304 costs next to nothing). */
export const POLL_MS = 2000

/** A description read from a URL: its copy on disk, which the rest of the mock reads as any file. */
export interface RemoteDescription {
  /** Where the copy of the description is. */
  path: string
  /** The URL a copied file came from (what a reload names), or the path itself. */
  urlOf(path: string): string
  /** With `--watch`: asks every `POLL_MS` whether a file changed, and writes a changed one over its copy (which the file watcher then sees). */
  poll(): void
  /** Stops polling and removes the copies. */
  close(): Promise<void>
}

export function isRemoteDescription(spec: string | undefined): spec is string {
  return spec !== undefined && /^https?:\/\//i.test(spec)
}

interface Copy {
  url: string
  path: string
  text: string
  etag?: string
  lastModified?: string
}

/**
 * Fetches a description given by URL (#36 §10), as Prism takes one, and the files its relative
 * `$ref`s name, into a folder of its own: once at start, and with `--watch` again whenever the
 * server says a file changed. A `$ref` is followed only under the description's own origin and folder
 * (a description may not make the mock fetch from elsewhere); each file is bounded in size and time.
 * Any failure at start is a `description_unreadable` start-up error naming the URL.
 */
export async function fetchRemoteDescription(url: string, logger: Logger): Promise<RemoteDescription> {
  const base = new URL(url)
  base.hash = ''
  // $refs may name files under the description's folder only.
  const prefix = new URL('.', base).href
  const folder = await mkdtemp(join(tmpdir(), 'plant-store-mock-description-'))
  const copies = new Map<string, Copy>()
  let total = 0
  const localPath = (fileUrl: URL) => {
    const relative = decodeURIComponent(fileUrl.pathname.slice(new URL(prefix).pathname.length)) || 'openapi.yaml'
    return join(folder, ...relative.split('/').filter((part) => part !== '' && part !== '..'))
  }

  /** Downloads a file and every file its `$ref`s name that is not copied yet. */
  const copyTree = async (fileUrl: URL, copy?: Copy): Promise<void> => {
    const fetched = await download(fileUrl, copy).catch((error: Error) => {
      // The description's own failure is named by the start-up error; a $ref'd file's names the file.
      throw fileUrl.href === base.href ? error : new Error(`${fileUrl.href} ${error.message}`)
    })
    if (fetched === 'unchanged') return
    if (copies.size >= MAX_FILES && !copies.has(fileUrl.href))
      throw new Error(`it names more than ${MAX_FILES} files through $refs`)
    total += fetched.text.length - (copy?.text.length ?? 0)
    if (total > MAX_TOTAL_BYTES) throw new Error(`its files are larger than ${MAX_TOTAL_BYTES} bytes together`)
    const path = copy?.path ?? localPath(fileUrl)
    await mkdir(dirname(path), { recursive: true })
    await writeFile(path, fetched.text)
    copies.set(fileUrl.href, { ...fetched, url: fileUrl.href, path })
    for (const named of refsOf(fetched.text)) {
      const target = new URL(named, fileUrl)
      target.hash = ''
      if (copies.has(target.href)) continue
      if (!target.href.startsWith(prefix))
        throw new Error(`its $ref "${named}" leads to ${target.href}, outside ${prefix}, where $refs may lead`)
      await copyTree(target)
    }
  }

  try {
    await copyTree(base)
  } catch (error) {
    await rm(folder, { recursive: true, force: true })
    throw startupErrors.descriptionUnreadable(url, (error as Error).message)
  }

  let timer: NodeJS.Timeout | undefined
  let failing = false
  return {
    path: copies.get(base.href)!.path,
    urlOf: (path) => [...copies.values()].find((copy) => copy.path === path)?.url ?? path,
    poll() {
      timer ??= setInterval(async () => {
        try {
          for (const copy of [...copies.values()]) await copyTree(new URL(copy.url), copy)
          if (failing) logger.info(`${url} answers again`)
          failing = false
        } catch (error) {
          if (!failing)
            logger.warn(`cannot read ${url} again (${(error as Error).message}); still serving the last copy`)
          failing = true
        }
      }, POLL_MS)
      timer.unref()
    },
    async close() {
      clearInterval(timer)
      await rm(folder, { recursive: true, force: true })
    },
  }
}

/** A file's text, or `unchanged` when the server says so (304) or sends the same text. */
async function download(url: URL, known?: Copy): Promise<Omit<Copy, 'url' | 'path'> | 'unchanged'> {
  const headers: Record<string, string> = { accept: 'application/yaml, application/json;q=0.9, */*;q=0.5' }
  if (known?.etag) headers['if-none-match'] = known.etag
  if (known?.lastModified) headers['if-modified-since'] = known.lastModified
  let response: Response
  try {
    response = await fetch(url, { headers, signal: AbortSignal.timeout(FETCH_MS) })
  } catch (error) {
    const cause = (error as Error & { cause?: Error }).cause?.message
    const reason =
      (error as Error).name === 'TimeoutError'
        ? `no answer within ${FETCH_MS / 1000} s`
        : (cause ?? (error as Error).message)
    throw new Error(`could not be fetched: ${reason}`)
  }
  if (response.status === 304 && known) return 'unchanged'
  if (!response.ok) {
    await response.body?.cancel()
    throw new Error(`answered ${response.status}`)
  }
  const text = await readBounded(response)
  if (known && text === known.text) return 'unchanged'
  return {
    text,
    etag: response.headers.get('etag') ?? undefined,
    lastModified: response.headers.get('last-modified') ?? undefined,
  }
}

async function readBounded(response: Response): Promise<string> {
  const declared = Number(response.headers.get('content-length'))
  if (declared > MAX_FILE_BYTES) {
    await response.body?.cancel()
    throw new Error(`is ${declared} bytes, more than the ${MAX_FILE_BYTES} a description file may be`)
  }
  const chunks: Uint8Array[] = []
  let size = 0
  const reader = response.body!.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > MAX_FILE_BYTES) {
      await reader.cancel()
      throw new Error(`is more than the ${MAX_FILE_BYTES} bytes a description file may be`)
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks).toString('utf8')
}

/** The files a description's text names in `$ref`s (the part before `#`); none when it does not parse (the loader says why). */
function refsOf(text: string): string[] {
  let parsed: unknown
  try {
    parsed = looksLikeJson(text) ? JSON.parse(text) : parseYaml(text, { maxAliasCount: 1000 })
  } catch {
    return []
  }
  const files = new Set<string>()
  for (const ref of collectRefs(parsed)) {
    const file = ref.split('#')[0]!
    if (file !== '') files.add(file)
  }
  return [...files]
}
