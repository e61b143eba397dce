/**
 * `--errors` tells the truth about the description (#30): an example that breaks its own schema is
 * answered 500 with how it breaks it, where without `--errors` a valid body replaces it; an object
 * schema under a text media type, of which no body can be written, is 500 under `--errors` and comes
 * with `X-Mock-Violations` without; a string under text/plain is written bare.
 */
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { createApp } from '../../src/index.js'
import { silentLogger } from '../../src/common/log.js'

const spec = fileURLToPath(new URL('../descriptions/errors-truth.yaml', import.meta.url))

describe('--errors tells the truth about the description (#30)', () => {
  it('answers 500 naming the enum an example breaks, under --errors', async () => {
    const app = await createApp({ spec, logger: silentLogger, errors: true })
    const res = await app.request('/colour')
    expect(res.status).toBe(500)
    expect(res.headers.get('x-mock-violations')).toContain('must be one of')
    expect(((await res.json()) as { message: string }).message).toContain('body must be one of "red", "green"')
  })

  it('serves a valid body in place of the broken example without --errors', async () => {
    const app = await createApp({ spec, logger: silentLogger })
    const res = await app.request('/colour')
    expect(res.status).toBe(200)
    expect(['red', 'green']).toContain(await res.json())
  })

  it('answers 500 naming the media type an object schema cannot be written as, under --errors', async () => {
    const app = await createApp({ spec, logger: silentLogger, errors: true })
    const res = await app.request('/page')
    expect(res.status).toBe(500)
    expect(((await res.json()) as { message: string }).message).toContain('cannot be written as text/html')
  })

  it('tells the empty text/html body in X-Mock-Violations without --errors', async () => {
    const app = await createApp({ spec, logger: silentLogger })
    const res = await app.request('/page')
    expect(res.status).toBe(200)
    expect(res.headers.get('x-mock-violations')).toContain('cannot be written as text/html')
    expect(await res.text()).toBe('')
  })

  it('answers 500 naming the minContains and prefixItems an example breaks, under --errors; a valid body without', async () => {
    const strict = await createApp({ spec, logger: silentLogger, errors: true })
    const lax = await createApp({ spec, logger: silentLogger })
    for (const [path, broken] of [
      ['/tally', 'must contain at least 2 valid item(s)'],
      ['/pair', 'body[1] must be an integer'],
    ] as const) {
      const refused = await strict.request(path)
      expect(refused.status).toBe(500)
      expect(((await refused.json()) as { message: string }).message).toContain(broken)
      const served = await lax.request(path)
      expect(served.status).toBe(200)
      expect(served.headers.get('x-mock-violations')).toBeNull()
    }
    expect((await (await lax.request('/tally')).json()) as number[]).toEqual(expect.arrayContaining([3, 3]))
  })

  it('answers 500 naming the way round a schema no body ends, with or without --errors, never a body cut short', async () => {
    for (const errors of [false, true]) {
      const app = await createApp({ spec, logger: silentLogger, errors })
      const res = await app.request('/chain')
      expect(res.status).toBe(500)
      const { message } = (await res.json()) as { message: string }
      expect(message).toContain('#/paths/~1chain/get/responses/200/content/application~1json/schema')
      expect(message).toContain('requires itself again at next')
    }
  })

  it('writes a string under text/plain bare, example or sample', async () => {
    const app = await createApp({ spec, logger: silentLogger, errors: true })
    for (const [path, text] of [
      ['/greeting', 'hello'],
      ['/word', 'string'],
    ]) {
      const res = await app.request(path!)
      expect([res.status, res.headers.get('content-type'), await res.text()]).toEqual([200, 'text/plain', text])
    }
  })
})
