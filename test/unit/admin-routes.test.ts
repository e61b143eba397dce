import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { parse as parseYaml } from 'yaml'
import { ADMIN_ROUTES } from '../../src/admin/admin-routes.js'

const adminSpec = parseYaml(
  readFileSync(fileURLToPath(new URL('../../admin-openapi.yaml', import.meta.url)), 'utf8'),
) as { paths: Record<string, Record<string, unknown>> }
const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'])

describe('ADMIN_ROUTES', () => {
  it('lists exactly the operations of admin-openapi.yaml, in its order: the 405 Allow, the 404 list and the index read it (#13)', () => {
    const declared = Object.entries(adminSpec.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => METHODS.has(key))
        .map((method) => ({ method: method.toUpperCase(), path })),
    )
    expect(ADMIN_ROUTES).toEqual(declared)
  })
})
