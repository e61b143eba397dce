/** The README's fenced code blocks, for the tests that run its examples as written. */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { root } from './processes.js'

const readme = readFileSync(join(root, 'README.md'), 'utf8')

/** The fenced blocks of one `## ` section (its `###` subsections included), in order. */
export function blocksOf(section: string, language: string): string[] {
  const start = readme.indexOf(`\n## ${section}\n`)
  const end = readme.indexOf('\n## ', start + 1)
  const text = readme.slice(start, end)
  return [...text.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!)
}
