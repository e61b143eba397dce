/**
 * `startMockServer` checks the description's examples after it listens (#11: loket.nl spent 4 of its
 * 6 s of start-up compiling a validator per response to check its examples, where Prism starts in
 * 2.8 s). Nothing a client sees may change: a broken example is never served, even to the first
 * request, and the warning naming it still comes, once.
 */
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { nodePlatform } from '../../src/node/node-platform.js'
import { createEngine } from '../../src/engine/engine.js'
import { type MockServer, startMockServer } from '../../src/index.js'
import { mediaOf } from '../../src/responses/declared-responses.js'

const brokenExamples = fileURLToPath(new URL('../descriptions/wild/broken-examples.yaml', import.meta.url))
const BROKEN = 'the example "default" is not served, since it breaks its schema'
const collecting = () => {
  const warnings: string[] = []
  return {
    warnings,
    logger: { info() {}, warn: (m: string) => warnings.push(m), error: (m: string) => warnings.push(m) },
  }
}

let server: MockServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

describe('examples checked after start-up (#11)', () => {
  it('leaves the examples unchecked at start-up, and checks a response’s on its first use, once', async () => {
    const { warnings, logger } = collecting()
    const engine = await createEngine({ spec: brokenExamples, seed: 1 }, logger, {
      deferExampleChecks: true,
      platform: nodePlatform,
    })
    expect(engine.deferredExamples.length).toBeGreaterThan(0)
    expect(warnings.filter((w) => w.includes(BROKEN))).toEqual([])
    const response = engine.deferredExamples[0]!
    expect(mediaOf(response)[0]!.bodies.size).toBe(0)
    mediaOf(response)
    expect(warnings.filter((w) => w.includes(BROKEN))).toHaveLength(1)
    expect(response.settle).toBeUndefined()
  })

  it('checks them while the server listens: the first request never gets the broken example, and the warning comes once', async () => {
    const { warnings, logger } = collecting()
    server = await startMockServer({ spec: brokenExamples, port: 0, seed: 1, logger })
    const res = await fetch(`${server.url}/users/me`, { signal: AbortSignal.timeout(5000) })
    const body = (await res.json()) as Record<string, unknown>
    expect(res.status).toBe(200)
    // The broken example's website is null; a generated body's is a string.
    expect(typeof body.website).toBe('string')
    for (let i = 0; i < 50 && !warnings.some((w) => w.includes(BROKEN)); i++)
      await new Promise((resolve) => setTimeout(resolve, 20))
    expect(warnings.filter((w) => w.includes(BROKEN))).toHaveLength(1)
  })

  it('keeps createApp’s start-up as it was: every example checked before it resolves', async () => {
    const { warnings, logger } = collecting()
    const { createApp } = await import('../../src/index.js')
    await createApp({ spec: brokenExamples, seed: 1, logger })
    expect(warnings.filter((w) => w.includes(BROKEN))).toHaveLength(1)
  })
})
