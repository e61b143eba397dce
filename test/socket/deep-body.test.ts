import { Writable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type MockServer, startMockServer } from '../../src/index.js'
import { createConsoleLogger } from '../../src/node/console-logger.js'

/** What a console logger wrote, line by line. */
function captured(): { stream: Writable; lines: string[] } {
  const lines: string[] = []
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean))
      done()
    },
  })
  return { stream, lines }
}

const LEVELS = 200_000
const where =
  'body[0][0][0][0]…[0][0][0][0] opens level 257 of nesting at position 256: the limit is 256 levels (--max-depth)'

/**
 * A 200,000-deep JSON array over a real socket: refused naming where the limit is passed and the
 * limit (#34: the refusal read `(1 problem): ` with no reason), and the journal and the log line
 * keep it whole.
 */
describe.each(['text', 'json'] as const)(
  'a body nested 200,000 levels deep, over a socket, logged as %s (#34)',
  (logFormat) => {
    let mock: MockServer
    const out = captured()
    const err = captured()
    beforeAll(async () => {
      const logger = createConsoleLogger({ logFormat, stdout: out.stream, stderr: err.stream })
      mock = await startMockServer({ port: 0, logger })
    })
    afterAll(() => mock.close())

    it('is refused with 400 naming the path and the limit, in the answer, the journal and the log line', async () => {
      const res = await fetch(`${mock.url}/plants`, {
        method: 'POST',
        headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
        body: '['.repeat(LEVELS) + ']'.repeat(LEVELS),
        signal: AbortSignal.timeout(10_000),
      })
      expect(res.status).toBe(400)
      expect(((await res.json()) as { message: string }).message).toBe(
        `The request does not match the description (1 problem): ${where}.`,
      )
      const listed = await fetch(`${mock.url}/__mock/requests?limit=1`, { signal: AbortSignal.timeout(5000) })
      const [entry] = ((await listed.json()) as { requests: Array<Record<string, unknown>> }).requests
      expect(entry).toMatchObject({
        status: 400,
        valid: false,
        reason: `The request does not match the description (1 problem): ${where}.`,
        violations: [
          {
            path: 'body[0][0][0][0]…[0][0][0][0]',
            message: 'opens level 257 of nesting at position 256: the limit is 256 levels (--max-depth)',
          },
        ],
      })
      // The journal keeps the body's first 64 KiB, as text: never parsed.
      expect(typeof entry!.body).toBe('string')
      await new Promise((resolve) => setImmediate(resolve))
      const line = out.lines.find((l) => l.includes('POST /plants') || l.includes('"/plants"'))
      expect(line).toContain(logFormat === 'text' ? where : JSON.stringify(where).slice(1, -1))
      expect(err.lines).toEqual([])
    })
  },
)
