import { getEventListeners } from 'node:events'
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { createApp } from '../../src/index.js'
import { MAX_HELD_ANSWERS } from '../../src/pipeline/deliver.js'
import { waitBeforeAnswering } from '../../src/pipeline/faults.js'
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

describe('waitBeforeAnswering (#12)', () => {
  it('leaves no listener on the server-long signal once the wait is over', async () => {
    const closing = new AbortController().signal
    const app = new Hono().get('/', async (c) => {
      await waitBeforeAnswering(5, transportOf(c), closing)
      return c.text('ok')
    })
    for (let i = 0; i < 20; i++) await app.request('/')
    expect(getEventListeners(closing, 'abort')).toHaveLength(0)
  })
})
