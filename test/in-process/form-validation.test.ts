/** Form fields' allowReserved and Swagger 2.0 formData's allowEmptyValue (#30 §4), through app.request(). */
import { describe, expect, it } from 'vitest'
import { type MockApp, createApp } from '../../src/index.js'
import { silentLogger } from '../../src/common/log.js'
import { FORM_SPECS, formCases } from '../support/form-validation-cases.js'

const apps = new Map<string, Promise<MockApp>>()
const appOf = (spec: keyof typeof FORM_SPECS) => {
  if (!apps.has(spec)) apps.set(spec, createApp({ spec: FORM_SPECS[spec], logger: silentLogger }))
  return apps.get(spec)!
}

describe('form validation (#30 §4)', () => {
  it.each(formCases.map((c) => [c.name, c] as const))('%s', async (_name, { spec, path, body, status, refuses }) => {
    const app = await appOf(spec)
    const response = await app.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    })
    const text = await response.text()
    expect(response.status, text).toBe(status)
    if (refuses) expect((JSON.parse(text) as { message: string }).message).toContain(`(1 problem): ${refuses} `)
  })
})
