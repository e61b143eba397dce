/** The fenced code blocks of the README and the docs/ pages, for the tests that run their examples as written. */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { root } from './processes.js'

export interface Block {
  /** The `## ` section the block stands in ('' before the first heading). */
  section: string
  /** The code between the fences, without the indent of a fence inside a list item. */
  code: string
  /** Why the examples test does not run it: the text of a `<!-- not run: … -->` line right before the fence. */
  notRun?: string
}

/**
 * The fenced `language` blocks of a markdown file of this clone (`README.md`, `docs/<page>.md`), in order:
 * those of one `## ` section (its `###` subsections included), or of the whole file when `section` is undefined.
 */
export function blocksOf(file: string, section: string | undefined, language: string): Block[] {
  const lines = readFileSync(join(root, file), 'utf8').split('\n')
  const blocks: Array<Block & { language: string }> = []
  let heading = ''
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(\s*)```(\S*)\s*$/.exec(lines[i]!)
    if (!fence) {
      if (lines[i]!.startsWith('## ')) heading = lines[i]!.slice(3).trim()
      continue
    }
    const [, indent, info] = fence
    const start = i
    while (++i < lines.length && !/^\s*```\s*$/.test(lines[i]!));
    const code = lines.slice(start + 1, i).map((line) => (line.startsWith(indent!) ? line.slice(indent!.length) : line))
    const notRun = /^\s*<!-- not run: (.*) -->\s*$/.exec(lines[start - 1] ?? '')?.[1]
    blocks.push({ section: heading, code: code.join('\n') + '\n', language: info!, ...(notRun && { notRun }) })
  }
  return blocks
    .filter((block) => block.language === language && (section === undefined || block.section === section))
    .map(({ language: _, ...block }) => block)
}
