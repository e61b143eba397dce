// No folder of src/ over 25 files (#28): a folder past that holds more than one idea; split it by job.
import { readdirSync } from 'node:fs'
import { join } from 'node:path'

const LIMIT = 25
const src = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..', 'src')
const crowded = readdirSync(src, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => ({ folder: entry.name, files: readdirSync(join(src, entry.name), { recursive: true }).length }))
  .filter(({ files }) => files > LIMIT)
for (const { folder, files } of crowded)
  console.error(`src/${folder}/ holds ${files} files, over ${LIMIT}: split it by job (CONTRIBUTING.md, "Layers")`)
process.exit(crowded.length ? 1 : 0)
