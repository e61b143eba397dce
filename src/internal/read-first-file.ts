import { readFile } from 'node:fs/promises'

/** The first of these files that exists, and its text; `undefined` when none does. Any error but a missing file is the caller's (`unreadable`). */
export async function readFirstFile(
  files: readonly string[],
  unreadable: (file: string, reason: string) => Error,
): Promise<{ file: string; text: string } | undefined> {
  for (const file of files) {
    try {
      return { file, text: await readFile(file, 'utf8') }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw unreadable(file, (error as Error).message)
    }
  }
  return undefined
}
