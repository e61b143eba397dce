/**
 * Under `--watch`, a fixture edited to hold a placeholder that can never be filled (#13 item 5) is
 * refused like any broken edit: the error names the file and the placeholder, and the server keeps
 * serving the last good version.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type MockServer, startMockServer } from '../../src/index.js'

const root = new URL('../../', import.meta.url).pathname
let dir: string
let mock: MockServer | undefined
let errors: string[]

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mock-template-watch-'))
  cpSync(join(root, 'openapi.yaml'), join(dir, 'openapi.yaml'))
  cpSync(join(root, 'fixtures'), join(dir, 'fixtures'), { recursive: true })
  errors = []
  const logger = { info() {}, warn() {}, error: (message: string) => void errors.push(message) }
  mock = await startMockServer({ spec: join(dir, 'openapi.yaml'), port: 0, watch: true, logger })
})

afterEach(async () => {
  await mock?.close()
  rmSync(dir, { recursive: true, force: true })
})

function postPlant(): Promise<Response> {
  return fetch(`${mock!.url}/plants`, {
    method: 'POST',
    headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
    body: '{"id":1,"name":"Fern"}',
  })
}

describe('--watch and placeholders that can never be filled (#13)', () => {
  it.each([
    [
      'a filter',
      '{{request.body.name | upper}}',
      'filters such as "| upper" are not supported',
      'template_bad_expression',
    ],
    [
      'a path parameter the path lacks',
      '{{request.params.id}}',
      'request.params has no id: the path /plants of addPlant has no parameters',
      'template_never_matches',
    ],
  ])(
    'keeps serving the last good version after an edit adding %s, naming the file and the placeholder',
    async (_label, placeholder, why, code) => {
      writeFileSync(join(dir, 'fixtures', 'addPlant', '200.json'), JSON.stringify({ name: placeholder }))
      await expect
        .poll(() => errors.join('\n'), { timeout: 5_000, interval: 100 })
        .toContain('Still serving the last good version')
      expect(errors[0]).toContain(join(dir, 'fixtures', 'addPlant', '200.json'))
      expect(errors[0]).toContain(`"${placeholder}"`)
      expect(errors[0]).toContain(why)
      expect(errors[0]).toMatch(new RegExp(`Still serving the last good version\\. \\[${code}\\]$`))
      const answer = await postPlant()
      expect(answer.status).toBe(200)
      expect(await answer.json()).toEqual({ name: 'Fern' })
    },
  )
})
