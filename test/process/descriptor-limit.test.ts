/**
 * Connections never take the last descriptors (#34): under `ulimit -n 160`, 190 delayed answers took
 * every descriptor, a fresh client's health check failed and `POST /plants` got ECONNRESET, and Node
 * warned of an abort-listener leak on the held answers.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { Agent, fetch } from 'undici'
import { cleanEnv, cliPath, root, start, startedUrl, stopProcesses, within } from '../support/processes.js'

afterEach(stopProcesses)

const addPlant = { method: 'POST', headers: { authorization: 'Bearer t', 'content-type': 'application/json' } }
const body = '{"id":1,"name":"Fern"}'

/** A request on a connection of its own; resolves its status and Retry-After, or the error's code. */
async function send(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  const dispatcher = new Agent({ connections: 1 })
  try {
    const response = await fetch(url, { ...init, dispatcher, signal: AbortSignal.timeout(10_000) })
    await response.arrayBuffer()
    const retryAfter = response.headers.get('retry-after')
    return retryAfter === null ? { status: response.status } : { status: response.status, retryAfter }
  } catch (error) {
    return { status: 0, error: String((error as { cause?: { code?: string } }).cause?.code ?? error) }
  } finally {
    await dispatcher.destroy()
  }
}

describe.runIf(process.platform === 'linux')('the descriptor limit (#34)', () => {
  it(
    'keeps descriptors for health and a refusal when 190 delayed answers come under ulimit -n 160',
    { timeout: 30_000 },
    async () => {
      const mock = start('bash', ['-c', 'ulimit -n 160 && exec "$0" "$@"', process.execPath, cliPath, '--port', '0'], {
        cwd: root,
        env: cleanEnv(),
      })
      const url = await startedUrl(mock, 10_000)
      const held = Array.from({ length: 190 }, () =>
        send(`${url}/plants`, { ...addPlant, headers: { ...addPlant.headers, prefer: 'delay=3000' }, body }),
      )
      await new Promise((resolve) => setTimeout(resolve, 1000))
      // A fresh client, while the described API's connections are taken.
      const health = await send(`${url}/__mock/health`)
      const plant = await send(`${url}/plants`, { ...addPlant, body })
      expect(health.status).toBe(200)
      // Its connection came past the described API's cap: refused, not reset.
      expect(plant).toEqual({ status: 503, retryAfter: '1' })
      const answers = await within(15_000, 'the held answers', Promise.all(held))
      const statuses = answers.map((answer) => answer.status)
      // The first connections are held, to the cap the limit leaves (160 less those open at start and
      // 64 kept back, less 16 for the admin API: never more than 96); those past it are refused, 16 at a
      // time (a refused one closes, and one that arrives later takes its place), or closed at accept.
      const held200 = statuses.filter((status) => status === 200).length
      expect(held200).toBeGreaterThan(40)
      expect(held200).toBeLessThanOrEqual(160 - 64)
      expect(statuses.filter((status) => status === 503).length).toBeGreaterThan(0)
      // Beyond it, 503 with Retry-After, or closed at accept (0) when they all came at once.
      expect(statuses.every((status) => status === 200 || status === 503 || status === 0)).toBe(true)
      expect(answers.filter((answer) => answer.status === 503).every((answer) => answer.retryAfter === '1')).toBe(true)
      // The refusals are journaled, naming the cap and the descriptor limit.
      const listed = (await (await fetch(`${url}/__mock/requests?limit=1000`)).json()) as {
        requests: Array<{ status: number; reason?: string }>
      }
      const refusals = listed.requests.filter((request) => request.status === 503)
      expect(refusals.length).toBeGreaterThan(0)
      expect(refusals[0]!.reason).toMatch(/connections open already, as many as its limit of 160 file descriptors/)
      // Once they are answered, the described API answers again.
      expect((await send(`${url}/plants`, { ...addPlant, body })).status).toBe(200)
      expect(mock.stderr()).not.toMatch(/MaxListenersExceededWarning|EMFILE|\n\s+at /)
    },
  )
})
