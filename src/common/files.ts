/**
 * The file system as the core reads it at start-up (descriptions, fixtures, scenarios, seed data) and
 * writes it for `--record`. Paths are absolute. A failure rejects with the platform's error, whose
 * message names the file and whose `code` says why as Node's do (`ENOENT`: nothing is there, `isMissing`).
 */
export interface Files {
  /** The text of a file, read as UTF-8. */
  readText(path: string): Promise<string>
  /** The bytes of a file. */
  readBytes(path: string): Promise<Uint8Array>
  /** What is at a path, symbolic links followed. */
  stat(path: string): Promise<FileInfo>
  /** The entries of a folder, in no particular order. */
  list(path: string): Promise<FolderEntry[]>
  /** The path with every symbolic link and `..` resolved. */
  realPath(path: string): Promise<string>
  /** Whether anything is at a path; synchronous, as the options are resolved before anything is read. */
  exists(path: string): boolean
  /** The media type a file's name says (`200.png` → `image/png`); `false` when it says none. */
  mediaTypeOf(path: string): string | false
  /** The path a `file:` URL names (`file:///a/b%20c.yaml` → `/a/b c.yaml`). */
  pathOfFileUrl(url: string): string
  /** Makes a folder, and the folders above it that are missing. */
  makeFolder(path: string): Promise<void>
  /** Writes a file that is not there yet: `false`, and nothing written, when one is. */
  writeNew(path: string, text: string): Promise<boolean>
  /**
   * Writes a file whole, replacing any: the text goes to a dotfile beside it first, renamed over it, so
   * that two writes at once leave one of them, never the two mixed.
   */
  replaceText(path: string, text: string): Promise<void>
  /** Removes a file; nothing happens when none is there. */
  remove(path: string): Promise<void>
}

/** What `Files.stat` finds: a file, a folder or something else (a device, a FIFO, a socket). */
export interface FileInfo {
  kind: 'file' | 'folder' | 'other'
  /** In bytes. */
  size: number
}

/** One entry of a folder (`Files.list`). */
export interface FolderEntry {
  name: string
  /** The folder's path and the name, joined as the platform joins them. */
  path: string
  /** A symbolic link is `other`: it is not followed. */
  kind: FileInfo['kind']
}

/** Whether a `Files` operation failed because nothing is at the path. */
export function isMissing(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'ENOENT'
}

/** Orders folder entries by name as `sort()` orders strings: start-up reads a folder in the same order everywhere. */
export function byName(a: FolderEntry, b: FolderEntry): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0
}

/**
 * What one load read (#35): each file by its path, and each folder listed (where a new file counts
 * too). `--watch` watches exactly these, worked out again after each reload.
 */
export interface ReadSet {
  files: Set<string>
  folders: Set<string>
}

/**
 * The same files, telling `read` of each file read or looked for (a `$ref` to a file not there yet
 * is followed too, so that creating it reloads) and each folder listed; writes are not told.
 */
export function recordingReads(files: Files, read: ReadSet): Files {
  return {
    ...files,
    readText: (path) => (read.files.add(path), files.readText(path)),
    readBytes: (path) => (read.files.add(path), files.readBytes(path)),
    stat: (path) => (read.files.add(path), files.stat(path)),
    realPath: (path) => (read.files.add(path), files.realPath(path)),
    list: (path) => (read.folders.add(path), files.list(path)),
  }
}
