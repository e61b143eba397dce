import { type Files, isMissing } from './files.js'

/** The first of these files that exists, and its text; `undefined` when none does. Any error but a missing file is the caller's (`unreadable`). */
export async function readFirstFile(
  paths: readonly string[],
  files: Files,
  unreadable: (file: string, reason: string) => Error,
): Promise<{ file: string; text: string } | undefined> {
  for (const file of paths) {
    try {
      return { file, text: await files.readText(file) }
    } catch (error) {
      if (!isMissing(error)) throw unreadable(file, (error as Error).message)
    }
  }
  return undefined
}
