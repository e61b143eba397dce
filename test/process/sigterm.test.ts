/**
 * SIGTERM under load (#5): the CLI with 20 requests in flight (slow chunked uploads, valid and
 * invalid, and delayed answers) gets SIGTERM; every request completes with its proper status, and
 * the process exits 0 within a bound.
 */
import http from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { startCli, startedUrl, stopProcesses, within } from '../support/processes.js'
import { responseOf, sleep } from '../support/raw-socket.js'

const agents: http.Agent[] = []

afterEach(async () => {
  for (const agent of agents.splice(0)) agent.destroy()
  await stopProcesses()
})

/** The CLI on port 0, with the URL of its start line. */
async function listeningCli() {
  const cli = startCli(['--port', '0'])
  return { ...cli, url: await startedUrl(cli, 10_000) }
}

interface InFlight {
  kind: string
  expected: number
  response: Promise<{ status: number; body: string }>
}

const headers = { authorization: 'Bearer t', 'content-type': 'application/json' }

/** A chunked upload the server has begun (100 Continue seen); `finish()` sends the rest slowly. */
async function slowUpload(
  url: string,
  agent: http.Agent,
  pieces: string[],
): Promise<{ response: InFlight['response']; finish: () => Promise<void> }> {
  const req = http.request(`${url}/plants`, {
    method: 'POST',
    agent,
    headers: { ...headers, 'transfer-encoding': 'chunked', expect: '100-continue' },
  })
  const response = responseOf(req)
  await within(5000, '100 Continue', new Promise<void>((resolve) => req.once('continue', resolve)))
  req.write(pieces[0]!)
  return {
    response,
    finish: async () => {
      for (const piece of pieces.slice(1)) {
        await sleep(100)
        req.write(piece)
      }
      req.end()
    },
  }
}

function delayedPost(url: string, agent: http.Agent, delayMs: number): InFlight['response'] {
  const req = http.request(`${url}/plants`, {
    method: 'POST',
    agent,
    headers: { ...headers, prefer: `delay=${delayMs}` },
  })
  const response = responseOf(req)
  req.end('{"id":2,"name":"Aloe"}')
  return response
}

describe('SIGTERM under load', () => {
  it('completes 20 in-flight requests, slow uploads included, with their proper statuses, then exits 0 (#5)', async () => {
    const mock = await listeningCli()
    const agent = new http.Agent({ keepAlive: true, maxSockets: 50 })
    agents.push(agent)
    const inFlight: InFlight[] = []
    const uploads: Array<() => Promise<void>> = []
    for (let i = 0; i < 10; i++) {
      const valid = i % 2 === 0
      const pieces = valid
        ? ['{"id": ', `${i}, `, '"name": ', '"Fern"', '}']
        : ['{"id": ', '"not a number", ', '"name": ', '5', '}']
      const upload = await slowUpload(mock.url, agent, pieces)
      inFlight.push({
        kind: `slow upload ${valid ? 'valid' : 'invalid'} #${i}`,
        expected: valid ? 200 : 400,
        response: upload.response,
      })
      uploads.push(upload.finish)
    }
    for (let i = 0; i < 10; i++)
      inFlight.push({ kind: `delayed #${i}`, expected: 200, response: delayedPost(mock.url, agent, 600 + i * 50) })
    // Loopback: the delayed requests have reached the server long before their answers are due.
    await sleep(200)

    const sentAt = performance.now()
    mock.child.kill('SIGTERM')
    await within(
      3000,
      'the SIGTERM line',
      (async () => {
        while (!mock.stdout().includes('SIGTERM: finishing in-flight requests')) await sleep(10)
      })(),
    )
    expect(mock.child.exitCode).toBeNull()
    await Promise.all(uploads.map((finish) => finish()))

    const answers = await within(10_000, 'every in-flight response', Promise.all(inFlight.map((r) => r.response)))
    answers.forEach((answer, i) => {
      const { kind, expected } = inFlight[i]!
      expect(answer.status, kind).toBe(expected)
      const body = JSON.parse(answer.body) as Record<string, unknown>
      if (expected === 200) expect(typeof body.name, kind).toBe('string')
      else expect(body.error, kind).toBe(400)
    })
    expect(await within(5000, 'exit after the last response', mock.exited)).toBe(0)
    // Well within the 8 s grace (CLOSE_GRACE_MS): the last upload ends ~0.4 s after the signal, the last delay ~1.1 s.
    expect(performance.now() - sentAt).toBeLessThan(5000)
  })
})
