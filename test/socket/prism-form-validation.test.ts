/**
 * Form fields' allowReserved and Swagger 2.0 formData's allowEmptyValue (#30 §4), the mock beside
 * Stoplight Prism 5.14 on loopback: the same status, or Prism's where a case names it (the reason is
 * in the case, and in docs/coming-from-prism.md).
 */
import { describe, expect, it } from 'vitest'
import { prismBesideMock } from '../support/prism.js'
import { FORM_SPECS, formCases } from '../support/form-validation-cases.js'

async function post(base: string, path: string, body: string): Promise<number> {
  const response = await fetch(base + path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
    signal: AbortSignal.timeout(10_000),
  })
  await response.text()
  return response.status
}

for (const spec of Object.keys(FORM_SPECS) as Array<keyof typeof FORM_SPECS>) {
  describe(`form validation beside Prism 5.14: ${spec} (#30 §4)`, () => {
    const servers = prismBesideMock(FORM_SPECS[spec])
    const cases = formCases.filter((c) => c.spec === spec)
    it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, { path, body, status, prism }) => {
      const [theirs, ours] = await Promise.all([post(servers.prismUrl, path, body), post(servers.mock.url, path, body)])
      expect(ours).toBe(status)
      expect(theirs).toBe(prism?.status ?? status)
    })
  })
}
