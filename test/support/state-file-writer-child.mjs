/**
 * A process that writes the state file as fast as it can until it is killed: the kill -9 test
 * (test/process/state-file-crash.test.ts) ends it at random moments and reads what it left.
 *
 *   node state-file-writer-child.mjs <state file> <child number>
 *
 * Each write is a document of 200 to 5,000 records (so writes take different times) that says how
 * many it holds (`data.meta[0].count`), and whose ids are integers beyond 2^53, so a reader can tell
 * a whole document from a part of one. Writes go every way the writer has: changed() then flush(),
 * changed() left to the timer while the next document is built, and flushSync(). Bounded: 20 s, 3,000
 * writes. Prints `started` once the writer exists, and any error the writer logs on stderr.
 */
import { createStateWriter } from '../../dist/node/state-writer.js'

const [file, child = '0'] = process.argv.slice(2)
if (!file) throw new Error('usage: state-file-writer-child.mjs <state file> <child number>')

const FIRST_ID = 9007199254740993n
const logger = {
  info() {},
  warn: (message) => process.stderr.write(`warn: ${message}\n`),
  error: (message) => process.stderr.write(`error: ${message}\n`),
}

let text = ''
const writer = createStateWriter(file, () => text, logger, { delayMs: 0, maxDelayMs: 0 })
process.stdout.write('started\n')

/** The document of write `write`: `count` plants, ids from 2^53 + 1, a session holding a few. */
function documentText(write, count) {
  const plants = []
  for (let i = 0; i < count; i++)
    plants.push(`{"id":${FIRST_ID + BigInt(i)},"name":"plant ${i} of write ${write}","note":"${'x'.repeat(i % 50)}"}`)
  const meta = JSON.stringify({ child: Number(child), write, count })
  return `{"version":1,"data":{"plants":[${plants.join(',')}],"meta":[${meta}]},"sessions":{"s":{"plants":[${plants.slice(0, count % 7).join(',')}]}}}`
}

const deadline = performance.now() + 20_000
for (let write = 1; write <= 3000 && performance.now() < deadline; write++) {
  const count = 200 + ((write * 7919 + Number(child) * 104729) % 4801)
  text = documentText(write, count)
  writer.changed()
  if (write % 4 === 0) writer.flushSync()
  // Left to the timer (set first, so it fires first): the next document is built while this one is written.
  else if (write % 4 === 3) await new Promise((resolve) => setTimeout(resolve, 0))
  else await writer.flush()
}
await writer.flush()
writer.close()
