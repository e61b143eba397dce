import { getEventListeners } from 'node:events'
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { createApp } from '../../src/index.js'
import { MAX_HELD_ANSWERS } from '../../src/pipeline/deliver.js'
import { waitBeforeAnswering } from '../../src/pipeline/faults.js'
import { HeldAnswers } from '../../src/pipeline/held-answers.js'
import { transportOf } from '../../src/pipeline/request-data.js'
import { silentLogger } from '../../src/common/log.js'

const plant = {
  method: 'POST',
  headers: { authorization: 'Bearer t', 'content-type': 'application/json', prefer: 'delay=60000' },
  body: '{"id":1,"name":"Fern"}',
}

describe('held answers are capped (#12)', () => {
  it(`answers 503 with Retry-After beyond ${MAX_HELD_ANSWERS} delayed answers, and health still answers`, async () => {
    const app = await createApp({ logger: silentLogger })
    const gone = new AbortController()
    const held = Array.from({ length: MAX_HELD_ANSWERS }, () =>
      Promise.resolve(app.request('/plants', { ...plant, signal: gone.signal })).catch(() => undefined),
    )
    await new Promise((resolve) => setTimeout(resolve, 50))
    const refused = await app.request('/plants', plant)
    expect(refused.status).toBe(503)
    expect(refused.headers.get('retry-after')).toBe('1')
    expect(((await refused.json()) as { message: string }).message).toContain(
      `${MAX_HELD_ANSWERS} delayed or hanging answers`,
    )
    expect((await app.request('/__mock/health')).status).toBe(200)
    gone.abort()
    await Promise.all(held)
    const after = await app.request('/plants', { ...plant, headers: { ...plant.headers, prefer: 'delay=1' } })
    expect(after.status).toBe(200)
  })
})

describe('waitBeforeAnswering (#12, #34)', () => {
  it('leaves one listener on the server-long signal however many answers wait, and none of theirs once they end', async () => {
    const closing = new AbortController()
    const held = new HeldAnswers(closing.signal)
    const app = new Hono().get('/', async (c) => {
      await waitBeforeAnswering(Number(c.req.query('ms')), transportOf(c), held)
      return c.text('ok')
    })
    for (let i = 0; i < 20; i++) await app.request('/?ms=5')
    expect(held.waiting).toBe(0)
    // 50 at once: one listener per answer on the closing signal passed Node's ten and warned of a leak.
    const waiting = Array.from({ length: 50 }, () => app.request('/?ms=60000'))
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(held.waiting).toBe(50)
    expect(getEventListeners(closing.signal, 'abort')).toHaveLength(1)
    closing.abort()
    const answers = await Promise.all(waiting)
    expect(answers.map((answer) => answer.status)).toEqual(Array(50).fill(200))
    expect(held.waiting).toBe(0)
  })
})
