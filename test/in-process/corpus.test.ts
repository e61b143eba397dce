/**
 * Small descriptions, one behaviour each, with their requests and expected responses beside them
 * in `x-mock-cases`: test/descriptions/corpus/ (issue #7), and test/descriptions/wild/, one for each way a real
 * published description broke the mock (#11). Where `x-mock-warnings` is given, start-up warns
 * exactly that many times, each warning containing its fragment. Every response is also checked
 * against the description by the Prism oracle (test/support/oracle.ts).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { parse as parseYaml } from 'yaml'
import { createApp } from '../../src/index.js'
import { type Oracle, createOracle } from '../support/oracle.js'

interface CorpusCase {
  name: string
  /** Options of the mock (`tokens`, `dynamic`...). */
  options?: Record<string, unknown>
  request: { method?: string; path: string; headers?: Record<string, string>; body?: string }
  /** `false` where the description as written has no valid answer and the mock serves what it meant (say why in the case). */
  oracle?: boolean
  expect: {
    status: number
    /** The exact JSON body. */
    json?: unknown
    /** The exact text of the body. */
    text?: string
    /** A pattern the body text matches. */
    textMatches?: string
    /** Fragments of the `message` of an error body. */
    message?: string[]
    /** Header patterns; `null` means the header must be absent. */
    headers?: Record<string, string | null>
    /** No body at all (204, 304, HEAD). */
    noBody?: boolean
  }
}

const folders = [
  { dir: fileURLToPath(new URL('../descriptions/corpus/', import.meta.url)), issue: '#7' },
  { dir: fileURLToPath(new URL('../descriptions/wild/', import.meta.url)), issue: '#11' },
]
const files = folders.flatMap(({ dir, issue }) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((file) => [file, issue, `${dir}${file}`] as const),
)

describe.each(files)('corpus %s (%s)', (_file, _issue, specPath) => {
  const description = parseYaml(readFileSync(specPath, 'utf8'))
  const cases: CorpusCase[] = description['x-mock-cases'] ?? []
  const expectedWarnings: string[] | undefined = description['x-mock-warnings']
  const apps = new Map<string, Promise<Hono<any>>>()
  const warnings: string[] = []
  const logger = {
    info() {},
    warn: (message: string) => warnings.push(message),
    error: (message: string) => warnings.push(message),
  }
  let oracle: Promise<Oracle> | undefined
  const appFor = (options: Record<string, unknown> = {}) => {
    const key = JSON.stringify(options)
    if (!apps.has(key)) apps.set(key, createApp({ spec: specPath, seed: 1, logger, ...options }))
    return apps.get(key)!
  }

  it('declares at least one case', () => {
    expect(cases.length).toBeGreaterThan(0)
  })

  if (expectedWarnings) {
    it('starts with exactly the warnings it expects', async () => {
      await appFor()
      for (const fragment of expectedWarnings)
        expect(
          warnings.some((w) => w.includes(fragment)),
          `${fragment}\n in ${warnings.join('\n')}`,
        ).toBe(true)
      expect(warnings, warnings.join('\n')).toHaveLength(expectedWarnings.length)
    })
  }

  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, testCase) => {
    const { request, expect: expected } = testCase
    const method = request.method ?? 'GET'
    const res = await (
      await appFor(testCase.options)
    ).request(request.path, { method, headers: request.headers, body: request.body })
    const text = await res.text()
    expect(res.status, text).toBe(expected.status)
    if (expected.json !== undefined) expect(JSON.parse(text)).toEqual(expected.json)
    if (expected.text !== undefined) expect(text).toBe(expected.text)
    if (expected.textMatches !== undefined) expect(text).toMatch(new RegExp(expected.textMatches))
    for (const fragment of expected.message ?? []) expect(JSON.parse(text).message).toContain(fragment)
    for (const [name, pattern] of Object.entries(expected.headers ?? {})) {
      if (pattern === null) expect(res.headers.get(name), name).toBeNull()
      else expect(res.headers.get(name) ?? '', name).toMatch(new RegExp(pattern))
    }
    if (expected.noBody) {
      expect(text).toBe('')
      expect(res.headers.get('content-type')).toBeNull()
    }
    if (testCase.oracle === false) return
    oracle ??= createOracle(specPath, { builtInError: true })
    const headers = Object.fromEntries([...res.headers].filter(([name]) => name !== 'content-type'))
    const exchange = {
      method,
      path: request.path,
      status: res.status,
      contentType: res.headers.get('content-type'),
      text,
      headers,
    }
    expect((await oracle).problems(exchange), JSON.stringify(exchange)).toEqual([])
  })
})
