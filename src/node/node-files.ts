import { existsSync } from 'node:fs'
import { mkdir, readFile, readdir, realpath, rename, rm, stat, writeFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { lookup as mediaTypeOfFile } from 'mime-types'
import type { FileInfo, Files } from '../common/files.js'

/** The file system through `node:fs`; its errors are Node's, as `Files` says. */
export const nodeFiles: Files = {
  readText: (path) => readFile(path, 'utf8'),
  readBytes: (path) => readFile(path),
  stat: async (path) => {
    const info = await stat(path)
    return { kind: kindOf(info), size: info.size }
  },
  list: async (path) =>
    (await readdir(path, { withFileTypes: true })).map((entry) => ({
      name: entry.name,
      path: join(path, entry.name),
      kind: kindOf(entry),
    })),
  realPath: (path) => realpath(path),
  exists: (path) => existsSync(path),
  mediaTypeOf: (path) => mediaTypeOfFile(path),
  pathOfFileUrl: (url) => fileURLToPath(url),
  makeFolder: async (path) => void (await mkdir(path, { recursive: true })),
  writeNew: async (path, text) => {
    try {
      await writeFile(path, text, { flag: 'wx' })
      return true
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
      throw error
    }
  },
  replaceText: async (path, text) => {
    // A dotfile, which `loadFixtures` passes over should the process stop before the rename.
    const aside = join(dirname(path), `.${basename(path)}.${process.pid}-${++asides}.tmp`)
    try {
      await writeFile(aside, text)
      await rename(aside, path)
    } catch (error) {
      await rm(aside, { force: true }).catch(() => {})
      throw error
    }
  },
  remove: (path) => rm(path, { force: true }),
}

let asides = 0

function kindOf(entry: { isFile(): boolean; isDirectory(): boolean }): FileInfo['kind'] {
  return entry.isFile() ? 'file' : entry.isDirectory() ? 'folder' : 'other'
}
