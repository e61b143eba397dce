/**
 * The admin API checked against its own description, `admin-openapi.yaml`, by the same oracle
 * approach as `oracle.ts`: Stoplight Prism reads the description (`getHttpOperationsFromSpec`) and
 * validates each response (`validateOutput`), sharing no code with the mock. Unlike `oracle.ts`,
 * every response header is handed to Prism (so declared headers such as `WWW-Authenticate` and
 * `Allow` are checked), and a status the operation does not declare is a problem in itself. What
 * the description says in prose is added as operations before Prism reads it: another method on an
 * admin path can only answer `components.responses.MethodNotAllowed`, any other path `NotFound`
 * (each after the caller and token checks, so `Unauthorized` and `Forbidden` too).
 */
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { getHttpOperationsFromSpec } from '@stoplight/prism-http'
import { validateOutput } from '@stoplight/prism-http/dist/validator/index.js'
import { parse as parseYaml } from 'yaml'

export const adminSpecPath = fileURLToPath(new URL('../../admin-openapi.yaml', import.meta.url))

/** One admin call and its response, as any transport saw it. */
export interface AdminExchange {
  method: string
  /** With or without a query string. */
  path: string
  status: number
  headers: Headers
  text: string
}

export interface AdminOracle {
  /** Every way the response breaks `admin-openapi.yaml`; empty when it conforms. */
  problems(exchange: AdminExchange): string[]
}

type Paths = Record<string, Record<string, unknown>>

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']
/** `/__mock/state/{resource}` matches `/__mock/state/plants`: a parameter stands for one whole segment. */
function matchesTemplate(template: string, path: string): boolean {
  if (!template.includes('{')) return false
  const pattern = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')
  return new RegExp(`^${pattern}$`).test(path)
}

/** The path key the added operations for "any other path under /__mock" live under. */
const ANY_OTHER_PATH = '/__mock/*'

export async function createAdminOracle(): Promise<AdminOracle> {
  const document = parseYaml(await readFile(adminSpecPath, 'utf8')) as { paths: Paths }
  const operations = await getHttpOperationsFromSpec(withMisses(document))
  const find = (method: string, path: string) =>
    operations.find((o) => o.method === method && (o.path === path || matchesTemplate(o.path, path)))

  return {
    problems(exchange) {
      const path = exchange.path.split('?')[0]!
      const method = exchange.method.toLowerCase()
      const operation = find(method, path) ?? find(method, ANY_OTHER_PATH)!
      const codes = operation.responses.map((r) => r.code)
      if (!codes.includes(String(exchange.status)))
        return [`${exchange.method} ${path} does not declare ${exchange.status} (declared: ${codes.join(', ')})`]
      const headers = Object.fromEntries(exchange.headers)
      let body: unknown = exchange.text === '' ? undefined : exchange.text
      if (/^application\/(.+\+)?json\b/i.test(headers['content-type'] ?? '')) {
        try {
          body = JSON.parse(exchange.text)
        } catch {
          return [`the body is declared as JSON but does not parse: ${exchange.text.slice(0, 100)}`]
        }
      }
      const outcome = validateOutput({ resource: operation, element: { statusCode: exchange.status, headers, body } })
      if (outcome._tag === 'Right') return []
      return outcome.left.map((d) => `${(d.path ?? []).join('.') || 'response'}: ${d.message}`)
    },
  }
}

/** The description with an operation for every method a path leaves out (HEAD is GET's) and for any other path. */
function withMisses(document: { paths: Paths }): object {
  const copy = structuredClone(document)
  const miss = (code: string, response: string) => ({
    security: [],
    responses: {
      [code]: { $ref: `#/components/responses/${response}` },
      '401': { $ref: '#/components/responses/Unauthorized' },
      '403': { $ref: '#/components/responses/Forbidden' },
    },
  })
  for (const item of Object.values(copy.paths)) {
    for (const method of METHODS)
      if (!(method in item) && !(method === 'head' && 'get' in item)) item[method] = miss('405', 'MethodNotAllowed')
  }
  copy.paths[ANY_OTHER_PATH] = Object.fromEntries(METHODS.map((method) => [method, miss('404', 'NotFound')]))
  return copy
}
