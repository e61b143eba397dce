/**
 * `--errors` tells the truth about the description (#30), the mock beside Stoplight Prism 5.14, both
 * with `--errors`, serving test/descriptions/errors-truth.yaml on loopback.
 */
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { prismBesideMock } from '../support/prism.js'

const spec = fileURLToPath(new URL('../descriptions/errors-truth.yaml', import.meta.url))
const servers = prismBesideMock(spec, { prismArgs: ['--errors'], mockOptions: { errors: true } })

async function ask(base: string, path: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(10_000) })
  return { status: response.status, text: await response.text() }
}

describe('--errors beside Prism 5.14 (#30)', () => {
  it('an example outside its enum: 500 in both, naming the enum', async () => {
    const [theirs, ours] = await Promise.all([ask(servers.prismUrl, '/colour'), ask(servers.mock.url, '/colour')])
    expect([theirs.status, ours.status]).toEqual([500, 500])
    expect(theirs.text).toContain('allowed values: red, green')
    expect(ours.text).toContain('must be one of')
  })

  it('an object schema under text/html: 500 in both, naming why', async () => {
    const [theirs, ours] = await Promise.all([ask(servers.prismUrl, '/page'), ask(servers.mock.url, '/page')])
    expect([theirs.status, ours.status]).toEqual([500, 500])
    expect(theirs.text).toContain('Cannot serialise complex objects as text')
    expect(ours.text).toContain('cannot be written as text/html')
  })

  it('an example that breaks minContains or prefixItems: 500 here, served by Prism, which does not read them', async () => {
    for (const [path, example] of [
      ['/tally', [1, 2, 3]],
      ['/pair', ['a', 'b']],
    ] as const) {
      const [theirs, ours] = await Promise.all([ask(servers.prismUrl, path), ask(servers.mock.url, path)])
      expect(ours.status).toBe(500)
      expect([theirs.status, JSON.parse(theirs.text)]).toEqual([200, example])
    }
  })

  it('a schema no body ends: 500 in both, ours naming the way round', async () => {
    const [theirs, ours] = await Promise.all([ask(servers.prismUrl, '/chain'), ask(servers.mock.url, '/chain')])
    expect([theirs.status, ours.status]).toEqual([500, 500])
    expect(ours.text).toContain('requires itself again at next')
  })

  it('a string under text/plain: the same bare text in both', async () => {
    for (const path of ['/greeting', '/word']) {
      const [theirs, ours] = await Promise.all([ask(servers.prismUrl, path), ask(servers.mock.url, path)])
      expect([ours.status, ours.text]).toEqual([theirs.status, theirs.text])
      expect(ours.text).not.toContain('"')
    }
  })
})

describe('without --errors beside Prism 5.14 (#30)', () => {
  const lax = prismBesideMock(spec)

  it('a schema no body ends: Prism serves a body cut short, 200; the mock answers 500 naming the schema', async () => {
    const [theirs, ours] = await Promise.all([ask(lax.prismUrl, '/chain'), ask(lax.mock.url, '/chain')])
    expect(theirs.status).toBe(200)
    expect(JSON.parse(theirs.text)).toEqual({ next: { next: {} } })
    expect(ours.status).toBe(500)
    expect(ours.text).toContain('#/paths/~1chain/get/responses/200/content/application~1json/schema')
  })
})
