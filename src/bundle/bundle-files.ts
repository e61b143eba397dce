import { dirname, relative, resolve } from 'pathe'
import type { FileInfo, Files, FolderEntry } from '../common/files.js'
import { startupErrors } from '../errors/index.js'
import { base64Bytes, utf8Bytes, utf8Text } from '../internal/bytes.js'
import type { MockBundle } from './mock-bundle.js'

/** Where a bundle's root is served: its paths are read under `/`. */
export const BUNDLE_ROOT = '/'

/**
 * The file system of a bundle (#33): the files its start-up read, read-only, at the paths they had
 * under the bundle's root. A path it does not hold is missing (`ENOENT`), as on disk; a write is
 * refused, since nothing that writes (`--record`, a coverage report) is let into a bundle.
 */
export function bundleFiles(bundle: MockBundle): Files {
  const folders = foldersOf(bundle)
  const keyOf = (path: string) => relative(BUNDLE_ROOT, resolve(BUNDLE_ROOT, path))
  const fileAt = (path: string) => {
    const file = bundle.files[keyOf(path)]
    if (file === undefined) throw missing(path)
    return file
  }
  const bytesAt = (path: string) => {
    const file = fileAt(path)
    return typeof file === 'string' ? utf8Bytes(file) : base64Bytes(file.base64)
  }
  const readOnly = (path: string) => Promise.reject(startupErrors.needsNode(`writing ${path}`, 'a mock bundle'))
  return {
    readText: async (path) => {
      const file = fileAt(path)
      return typeof file === 'string' ? file : utf8Text(base64Bytes(file.base64))
    },
    readBytes: async (path) => bytesAt(path),
    stat: async (path): Promise<FileInfo> => {
      if (folders.has(keyOf(path))) return { kind: 'folder', size: 0 }
      return { kind: 'file', size: bytesAt(path).length }
    },
    list: async (path) => {
      const children = folders.get(keyOf(path))
      if (!children) throw missing(path)
      return [...children].map(([name, kind]): FolderEntry => ({ name, path: resolve(path, name), kind }))
    },
    realPath: async (path) => {
      const key = keyOf(path)
      if (!folders.has(key) && bundle.files[key] === undefined) throw missing(path)
      return resolve(BUNDLE_ROOT, key)
    },
    exists: (path) => folders.has(keyOf(path)) || bundle.files[keyOf(path)] !== undefined,
    mediaTypeOf: (path) => bundle.mediaTypes[keyOf(path)] ?? false,
    pathOfFileUrl: (url) => decodeURIComponent(new URL(url).pathname),
    makeFolder: readOnly,
    writeNew: readOnly,
    replaceText: readOnly,
    remove: readOnly,
  }
}

/** Each folder of the bundle (`''` the root), with its entries by name: those of its files' paths and of its listed folders. */
function foldersOf(bundle: MockBundle): Map<string, Map<string, FolderEntry['kind']>> {
  const folders = new Map<string, Map<string, FolderEntry['kind']>>([['', new Map()]])
  const add = (path: string, kind: FolderEntry['kind']) => {
    // A folder only its files name (`a/b` of `a/b/c.yaml`) is a folder of its own too.
    if (kind === 'folder' && !folders.has(path)) folders.set(path, new Map())
    const parent = dirname(path) === '.' ? '' : dirname(path)
    if (!folders.has(parent)) add(parent, 'folder')
    folders.get(parent)!.set(path.slice(parent === '' ? 0 : parent.length + 1), kind)
  }
  for (const folder of bundle.folders) if (folder !== '' && !folders.has(folder)) add(folder, 'folder')
  for (const path of Object.keys(bundle.files)) add(path, 'file')
  return folders
}

/** As Node's file system fails for a path with nothing there (`isMissing`). */
function missing(path: string): Error {
  return Object.assign(new Error(`ENOENT: the mock bundle holds nothing at ${path}`), { code: 'ENOENT' })
}
