/**
 * A conformance oracle that shares no code with the mock: Stoplight Prism's own reading of the
 * description (`getHttpOperationsFromSpec`) and its response validator (`validateOutput`).
 * A response with a status the operation declares is checked against that declaration. Statuses it
 * does not declare (401, 404, 405, 413, 415) cannot be: their bodies are checked against
 * `components.schemas.Error`, by the same validator, as if the operation declared them so.
 * Prism caps int64 at 2^53, which matters for requests only; the oracle checks only responses.
 */
import { readFile } from 'node:fs/promises'
import { getHttpOperationsFromSpec } from '@stoplight/prism-http'
import { validateOutput } from '@stoplight/prism-http/dist/validator/index.js'
import { XMLValidator } from 'fast-xml-parser'
import { parse as parseYaml } from 'yaml'

type HttpOperation = Awaited<ReturnType<typeof getHttpOperationsFromSpec>>[number]

/** One request and the response it got, as any transport saw it. */
export interface Exchange {
  method: string
  path: string
  status: number
  contentType: string | null
  text: string
  /** Response headers besides Content-Type, lower-cased names (checked against declared response headers). */
  headers?: Record<string, string>
}

export interface Oracle {
  /** Every way the response breaks the description; empty when it conforms. */
  problems(exchange: Exchange): string[]
}

/** The mock's built-in error body, for descriptions without `components.schemas.Error` (`createOracle(path, { builtInError: true })`). */
const BUILT_IN_ERROR = {
  type: 'object',
  required: ['error', 'message'],
  properties: { error: { type: 'integer' }, message: { type: 'string' } },
}

export async function createOracle(
  specPath: string,
  { builtInError = false }: { builtInError?: boolean } = {},
): Promise<Oracle> {
  const operations = await getHttpOperationsFromSpec(specPath)
  const document = parseYaml(await readFile(specPath, 'utf8')) as { components?: { schemas?: Record<string, unknown> } }
  const errorSchema = document.components?.schemas?.Error ?? (builtInError ? BUILT_IN_ERROR : undefined)
  if (!errorSchema) throw new Error(`${specPath} has no components.schemas.Error for the statuses it does not declare`)

  function declaredFor(operation: HttpOperation | undefined, status: number) {
    const code = String(status)
    return operation?.responses.find(
      (r) => r.code === code || r.code.toUpperCase() === `${code[0]}XX` || r.code === 'default',
    )
  }

  /** The operation as Prism would read it if it declared `status` with the Error schema. */
  function withErrorResponse(operation: HttpOperation | undefined, exchange: Exchange): HttpOperation {
    const base =
      operation ??
      ({
        id: 'undeclared',
        method: exchange.method.toLowerCase(),
        path: exchange.path,
        servers: [],
        request: {},
        security: [],
      } as unknown as HttpOperation)
    const response = {
      id: `undeclared-${exchange.status}`,
      code: String(exchange.status),
      headers: [],
      contents: [
        {
          id: `undeclared-${exchange.status}-json`,
          mediaType: 'application/json',
          schema: errorSchema,
          examples: [],
          encodings: [],
        },
      ],
    }
    return { ...base, responses: [response] } as unknown as HttpOperation
  }

  return {
    problems(exchange) {
      const path = exchange.path.split('?')[0]!
      // HEAD is answered by the GET operation when the description declares no HEAD.
      const method = exchange.method === 'HEAD' ? 'get' : exchange.method.toLowerCase()
      // A path key with a query or fragment part (`/#X-Amz-Target=...`) is served at the part before it.
      const candidates = operations.filter(
        (o) => o.method === method && pathMatches(o.path.replace(/[?#].*$/, ''), path),
      )
      // A literal path wins over a templated one, as in the mock's router.
      const operation = candidates.find((o) => o.path === path) ?? candidates[0]
      const declared = declaredFor(operation, exchange.status)
      // An operation that declares no response at all is answered 204 with no body (docs/how-an-answer-is-chosen.md, "Status").
      if (operation && operation.responses.length === 0)
        return exchange.status === 204 && exchange.text === ''
          ? []
          : ['an operation without responses must answer 204 with no body']
      if (exchange.method === 'HEAD') return exchange.text === '' ? [] : ['a HEAD response carries a body']
      const resource = declared ? operation! : withErrorResponse(operation, exchange)
      // Prism validates a body as the text it is: an XML document can only be checked for being well formed.
      if (exchange.contentType && /^(application|text)\/(.+\+)?xml\b/i.test(exchange.contentType)) {
        const wellFormed = XMLValidator.validate(exchange.text)
        return wellFormed === true ? [] : [`the XML body is not well formed: ${wellFormed.err.msg}`]
      }
      let body: unknown = exchange.text
      if (exchange.contentType && /^application\/(.+\+)?json\b/i.test(exchange.contentType)) {
        try {
          body = JSON.parse(exchange.text)
        } catch {
          return [`the body is declared as JSON but does not parse: ${exchange.text.slice(0, 100)}`]
        }
      }
      const headers: Record<string, string> = {
        ...exchange.headers,
        ...(exchange.contentType ? { 'content-type': exchange.contentType } : {}),
      }
      const outcome = validateOutput({ resource, element: { statusCode: exchange.status, headers, body } })
      if (outcome._tag === 'Right') return []
      return outcome.left.map((d) => `${(d.path ?? []).join('.') || 'response'}: ${d.message}`)
    },
  }
}

/** `/pets/{petId}` matches `/pets/7`: each template expression stands for one segment (or part of one). */
function pathMatches(template: string, path: string): boolean {
  if (template === path) return true
  if (!template.includes('{')) return false
  const source = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^{}]+\}/g, '[^/]+')
  return new RegExp(`^${source}$`).test(path)
}
