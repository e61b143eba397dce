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
