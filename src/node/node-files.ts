import type { Files } from '../common/files.js'

/** The file system through `node:fs`. */
export const nodeFiles: Files = {}
