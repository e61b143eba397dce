import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { type AppOptions, createApp } from '../../src/index.js'

/**
 * The generation budget as options (#12): bytes and milliseconds, per app. No assertion is timed:
 * sizes are bounded, budgets small, and what is checked is the status and the message.
 */
const specPath = fileURLToPath(new URL('../descriptions/generation-budget-options.yaml', import.meta.url))
const pointer = (path: string) => `#/paths/~1${path}/get/responses/200/content/application~1json/schema`

async function appWith(options: AppOptions = {}) {
  const warnings: string[] = []
  const logger = {
    info() {},
    warn: (message: string) => warnings.push(message),
    error: (message: string) => warnings.push(message),
  }
  const app = await createApp({ spec: specPath, seed: 1, logger, ...options })
  const get = async (path: string) => {
    const res = await app.request(path)
    const text = await res.text()
    return { status: res.status, text, json: () => JSON.parse(text) }
  }
  return { get, warnings }
}

describe('generation budget in bytes (#12, --generation-bytes)', () => {
  it('answers 500 naming the schema where a string is beyond a small byte budget, and warns once at start-up', async () => {
    const { get, warnings } = await appWith({ generationBytes: 1024 })
    const answer = await get('/text')
    expect(answer.status).toBe(500)
    expect(answer.json().message).toContain('No body within the generation budget')
    expect(answer.json().message).toContain(pointer('text'))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain(`a schema asks for minLength 2000 (at ${pointer('text')}/properties/data)`)
    expect(warnings[0]).toContain('1024 bytes; --generation-bytes raises it')
  })

  it('serves the same schema with a byte budget that holds it, without a warning', async () => {
    const { get, warnings } = await appWith({ generationBytes: 4096 })
    const answer = await get('/text')
    expect(answer.status).toBe(200)
    expect(answer.json().data.length).toBeGreaterThanOrEqual(2000)
    expect(warnings).toEqual([])
  })

  it('answers 500 where each value is within the byte budget but the whole body is not', async () => {
    const { get, warnings } = await appWith({ generationBytes: 1024 })
    const answer = await get('/strings')
    expect(answer.status).toBe(500)
    expect(answer.json().message).toContain(pointer('strings'))
    expect(answer.json().message).toContain(
      'the generated body is larger than the 1024 bytes the budget allows (--generation-bytes raises it)',
    )
    expect(warnings.some((w) => w.includes('/strings'))).toBe(false)
  })

  it('keeps serving small generated bodies under a small byte budget', async () => {
    const { get } = await appWith({ generationBytes: 1024 })
    const answer = await get('/generated-plant')
    expect(answer.status).toBe(200)
    expect(typeof answer.json().name).toBe('string')
  })
})

describe('generation budget in milliseconds (#12, --generation-ms)', () => {
  it('stops generation past a 1 ms budget with 500 naming the schema, and answers the next request', async () => {
    const { get } = await appWith({ generationMs: 1, generationBytes: 16 * 1024 * 1024 })
    const answer = await get('/cube')
    expect(answer.status).toBe(500)
    expect(answer.json().message).toContain('No body within the generation budget')
    expect(answer.json().message).toContain(pointer('cube'))
    expect(answer.json().message).toContain('took longer than the 1 ms the budget allows (--generation-ms raises it)')
    const next = await get('/plant')
    expect(next.status).toBe(200)
    expect(next.json()).toEqual({ name: 'Fern' })
    expect((await get('/__mock/health')).status).toBe(200)
  })

  it('serves the same nested lists within the default budget: the deadline, not the schema, refused them', async () => {
    const { get } = await appWith({ generationBytes: 16 * 1024 * 1024 })
    const answer = await get('/cube')
    expect(answer.status).toBe(200)
    expect(answer.json().flat(2)).toHaveLength(60 * 60 * 60)
  })
})

describe('generation budget per app (#12)', () => {
  it('keeps each app to its own budget, in whatever order they answer', async () => {
    const small = await appWith({ generationBytes: 1024 })
    const large = await appWith({ generationBytes: 4096 })
    expect((await small.get('/text')).status).toBe(500)
    expect((await large.get('/text')).status).toBe(200)
    expect((await small.get('/text')).status).toBe(500)
    expect((await large.get('/strings')).status).toBe(200)
    expect((await small.get('/strings')).status).toBe(500)
  })

  it('gives the same bodies for the same seed whatever the budget, where the body fits both', async () => {
    const one = await appWith({ generationMs: 60_000 })
    const other = await appWith({ generationBytes: 4096 })
    for (const path of ['/generated-plant', '/strings', '/generated-plant'])
      expect((await one.get(path)).text).toBe((await other.get(path)).text)
  })
})
