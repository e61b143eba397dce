import { afterEach, describe, expect, it } from 'vitest'
import { createConsoleLogger } from '../../src/node/console-logger.js'
import { startCli, startedUrl, stopProcesses } from '../support/processes.js'
import { Writable } from 'node:stream'

/** Losing the reader of the log must never stop the mock (#12). */
afterEach(stopProcesses)

const validPlant = {
  method: 'POST',
  headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
  body: '{"id":1,"name":"Fern"}',
}

describe('a log reader that goes away (#12)', () => {
  it('keeps serving when the stdout pipe closes (| head -1), dropping request lines', async () => {
    const cli = startCli(['--port', '0'])
    const url = await startedUrl(cli, 10_000)
    // The reader goes away, as `plant-store-mock | head -1` does after the start line.
    cli.child.stdout!.destroy()
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${url}/plants`, { ...validPlant, signal: AbortSignal.timeout(5000) })
      expect(res.status).toBe(200)
      await res.arrayBuffer()
      // Request lines are written once per event-loop turn: give each one its turn to hit EPIPE.
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    expect(cli.child.exitCode).toBeNull()
    expect(cli.stderr()).not.toMatch(/EPIPE|Unhandled/)
  })
})

describe('createConsoleLogger with a reader that stops reading (#12)', () => {
  /** A stream whose reader never drains it: every write stays in its buffer. */
  function stalledStream() {
    const stream = new Writable({ highWaterMark: 1024, write: () => {} })
    return stream
  }

  it('drops and counts lines once 1 MiB waits in the buffer, instead of queueing without bound', async () => {
    const stdout = stalledStream()
    const logger = createConsoleLogger({ stdout, stderr: stalledStream() })
    const line = {
      time: Date.now(),
      method: 'GET',
      path: `/${'x'.repeat(1000)}`,
      status: 200,
      durationMs: 1,
      scenario: 'default',
      violations: [],
    }
    for (let i = 0; i < 3000; i++) {
      logger.request!(line)
      logger.flush()
    }
    expect(stdout.writableLength).toBeLessThan(1.1 * 1024 * 1024)
    expect(logger.droppedLines()).toBeGreaterThan(1000)
  })

  it('drops and counts lines after the stream fails, without an unhandled error', () => {
    const stdout = new Writable({
      write: (_chunk, _encoding, done) => done(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' })),
    })
    const logger = createConsoleLogger({ stdout, stderr: stalledStream() })
    logger.info('first')
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        logger.info('second')
        expect(logger.droppedLines()).toBe(1)
        resolve()
      }),
    )
  })
})
