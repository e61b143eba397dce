/**
 * The admin API checked against its own description, `admin-openapi.yaml`, by the same oracle
 * approach as `oracle.ts`: Stoplight Prism reads the description (`getHttpOperationsFromSpec`) and
 * validates each response (`validateOutput`), sharing no code with the mock. Unlike `oracle.ts`,
 * every response header is handed to Prism (so declared headers such as `WWW-Authenticate` are
 * checked), and a status the operation does not declare is a problem in itself. A path the
 * description does not declare can only answer `components.responses.NotFound`.
 */
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { getHttpOperationsFromSpec } from '@stoplight/prism-http'
import { validateOutput } from '@stoplight/prism-http/dist/validator/index.js'
import { parse as parseYaml } from 'yaml'

type HttpOperation = Awaited<ReturnType<typeof getHttpOperationsFromSpec>>[number]

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

export async function createAdminOracle(): Promise<AdminOracle> {
  const operations = await getHttpOperationsFromSpec(adminSpecPath)
  const document = parseYaml(await readFile(adminSpecPath, 'utf8')) as { components: { schemas: Record<string, unknown> } }
  const errorSchema = document.components.schemas.Error

  /** Any other path under /__mock, read as an operation that declares only the NotFound response. */
  function notFoundOperation(exchange: AdminExchange): HttpOperation {
    const contents = [{ id: 'not-found-json', mediaType: 'application/json', schema: errorSchema, examples: [], encodings: [] }]
    return {
      id: 'not-found',
      method: exchange.method.toLowerCase(),
      path: exchange.path,
      servers: [],
      request: {},
      security: [],
      responses: [{ id: 'not-found', code: '404', headers: [], contents }],
    } as unknown as HttpOperation
  }

  return {
    problems(exchange) {
      const path = exchange.path.split('?')[0]
      const declared = operations.find((o) => o.method === exchange.method.toLowerCase() && o.path === path)
      const operation = declared ?? notFoundOperation(exchange)
      const codes = operation.responses.map((r) => r.code)
      if (!codes.includes(String(exchange.status))) return [`${exchange.method} ${path} does not declare ${exchange.status} (declared: ${codes.join(', ')})`]
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
