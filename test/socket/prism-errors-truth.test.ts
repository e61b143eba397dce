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

  it('a string under text/plain: the same bare text in both', async () => {
    for (const path of ['/greeting', '/word']) {
      const [theirs, ours] = await Promise.all([ask(servers.prismUrl, path), ask(servers.mock.url, path)])
      expect([ours.status, ours.text]).toEqual([theirs.status, theirs.text])
      expect(ours.text).not.toContain('"')
    }
  })
})
