/**
 * No request waits on another's body (#34 §1): a body whose making takes seconds of CPU is made off the
 * event loop (`src/node/generation-thread.ts`), and a cheap operation of the same mock is answered all
 * the while. The bound here is loose on purpose (a CI machine's wall clock is not a benchmark): the cheap
 * requests must keep being answered during the generation, which the event loop held for its whole
 * length before; `npm run attack` measures the other client's p99.
 */
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { startCli, startedUrl, stopProcesses } from '../support/processes.js'

const bombSpec = fileURLToPath(new URL('../descriptions/generation-bomb.yaml', import.meta.url))

afterEach(stopProcesses)

/** Pings every 10 ms while `work` runs (at most 60 s): how many were answered, and the slowest. */
async function pingWhile<T>(url: string, work: Promise<T>): Promise<{ result: T; pings: number; slowest: number }> {
  let done = false
  const finished = work.finally(() => (done = true))
  let pings = 0
  let slowest = 0
  const deadline = Date.now() + 60_000
  while (!done && Date.now() < deadline) {
    const started = performance.now()
    const answer = await fetch(`${url}/ping`)
    expect(answer.status).toBe(200)
    await answer.arrayBuffer()
    slowest = Math.max(slowest, performance.now() - started)
    pings++
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  return { result: await finished, pings, slowest }
}

describe('a costly body is made off the event loop (#34 §1)', () => {
  it('a static body of 300,000 items is made while the other operation goes on being answered; the next request gets it at once', async () => {
    const spawned = startCli([bombSpec, '--port', '0', '--quiet'])
    const url = await startedUrl(spawned, 10_000)
    const started = performance.now()
    const bomb = fetch(`${url}/bomb`).then(async (answer) => ({
      status: answer.status,
      items: ((await answer.json()) as number[]).length,
      ms: performance.now() - started,
    }))
    const { result, pings, slowest } = await pingWhile(url, bomb)
    expect(result).toMatchObject({ status: 200, items: 300_000 })
    // Held for the whole generation, no ping would have been answered before the body; here they all are.
    expect(pings).toBeGreaterThanOrEqual(5)
    expect(slowest).toBeLessThan(result.ms / 2)
    // Kept, as a static body is: the second request is answered from it.
    const again = await fetch(`${url}/bomb`)
    expect(again.status).toBe(200)
    expect(((await again.json()) as number[]).length).toBe(300_000)
  }, 90_000)

  it('past the budget, the answer is the same 500 generation_budget as on the main thread, and the mock goes on', async () => {
    const spawned = startCli([bombSpec, '--port', '0', '--quiet', '--generation-ms', '300'])
    const url = await startedUrl(spawned, 10_000)
    const { result, pings } = await pingWhile(
      url,
      fetch(`${url}/bomb`).then(async (answer) => ({
        status: answer.status,
        body: (await answer.json()) as { message: string },
      })),
    )
    expect(result.status).toBe(500)
    expect(result.body.message).toContain('took longer than the 300 ms the budget allows')
    expect(pings).toBeGreaterThanOrEqual(1)
    expect((await fetch(`${url}/ping`)).status).toBe(200)
    expect(spawned.child.exitCode).toBeNull()
  }, 90_000)

  it('with --dynamic every costly body is made off the loop, one after another, each answered', async () => {
    const spawned = startCli([bombSpec, '--port', '0', '--quiet', '--dynamic'])
    const url = await startedUrl(spawned, 10_000)
    const bombs = Promise.all(
      [1, 2].map(async () => {
        const answer = await fetch(`${url}/bomb`)
        return { status: answer.status, items: ((await answer.json()) as number[]).length }
      }),
    )
    const { result, pings } = await pingWhile(url, bombs)
    expect(result).toEqual([
      { status: 200, items: 300_000 },
      { status: 200, items: 300_000 },
    ])
    expect(pings).toBeGreaterThanOrEqual(5)
  }, 120_000)
})
