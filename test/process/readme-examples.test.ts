/**
 * The README's examples run as written (#13): the `curl` lines of the quick start against the
 * built command line's mock, each compared with the answer written under it; and the "From a test"
 * block against the built package, its `// a === b` comments checked where they stand. A README
 * edit that breaks an example fails here.
 */
import { cpSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Spawned, cleanEnv, cliPath, root, start, stopProcesses, waitForOutput } from '../support/processes.js'
import { removeTempDirs, tempDir } from '../support/temp-dirs.js'
import { blocksOf } from '../support/readme-blocks.js'

interface CurlExample {
  command: string
  /** The `# ...` lines written under it. */
  expected: string[]
}

/** Each `curl` command (continuation lines joined) with the comment lines that follow it. */
function curlExamples(block: string): CurlExample[] {
  const examples: CurlExample[] = []
  const lines = block.replace(/\\\n\s*/g, '').split('\n')
  for (const line of lines) {
    if (line.startsWith('curl ')) examples.push({ command: line, expected: [] })
    else if (line.startsWith('# ') && examples.length && examples.at(-1)!.expected.length < 2)
      examples.at(-1)!.expected.push(line.slice(2))
    else if (line.startsWith('# ')) continue
  }
  return examples
}

/** Words as a POSIX shell splits them: single and double quotes, no expansions (the README uses none). */
function shellWords(command: string): string[] {
  const words: string[] = []
  for (const match of command.matchAll(/'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/g))
    words.push(match[1] ?? match[2]?.replace(/\\(.)/g, '$1') ?? match[3]!)
  return words
}

/** The request curl sends for these words: -X, -H, -d (POST and a form Content-Type unless told otherwise), -i, -s. */
function requestOf(words: string[], base: string): { url: string; init: RequestInit; showsStatus: boolean } {
  const headers = new Headers()
  let method: string | undefined
  let body: string | undefined
  let url = ''
  let showsStatus = false
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!
    if (word === '-X') method = words[++i]
    else if (word === '-H') {
      const header = words[++i]!
      headers.set(header.slice(0, header.indexOf(':')), header.slice(header.indexOf(':') + 1).trim())
    } else if (word === '-d') body = words[++i]
    else if (word === '-i') showsStatus = true
    else if (word === '-s') continue
    else url = word.replace(/^(http:\/\/)?(127\.0\.0\.1|localhost):4010/, base)
  }
  if (body !== undefined && !headers.has('content-type'))
    headers.set('content-type', 'application/x-www-form-urlencoded')
  return {
    url,
    init: {
      method: method ?? (body === undefined ? 'GET' : 'POST'),
      headers,
      body,
      signal: AbortSignal.timeout(10_000),
    },
    showsStatus,
  }
}

let base: string
/** The mock of the "Conditions, sequences and stubs" section: the Plant Store with its scenarios files added to the fixtures. */
let rulesBase: string
/** The mock of the Stateful mode walk-through, started as the README says: the Garden description, `--stateful`. */
let statefulBase: string

/** Starts the built command line with these arguments and answers its URL. */
async function startCli(args: string[]): Promise<string> {
  const mock: Spawned = start(process.execPath, [cliPath, '--port', '0', ...args], { cwd: root, env: cleanEnv() })
  const [, url] = await waitForOutput(mock, /(http:\/\/127\.0\.0\.1:\d+)/, 20_000, 'the mock to listen')
  return url!
}

/** The Plant Store's fixtures with a scenarios file made of the section's YAML blocks, as a reader would put them there. */
async function fixturesWithRulesOfReadme(): Promise<string> {
  const dir = await tempDir('mock-readme-rules-', {})
  cpSync(join(root, 'fixtures'), dir, { recursive: true })
  writeFileSync(join(dir, 'scenarios.yaml'), blocksOf('Conditions, sequences and stubs', 'yaml').join('\n'))
  return dir
}

beforeAll(async () => {
  ;[base, statefulBase, rulesBase] = await Promise.all([
    startCli([]),
    startCli(['test/descriptions/stateful/garden.yaml', '--stateful']),
    fixturesWithRulesOfReadme().then((dir) => startCli(['--fixtures', dir])),
  ])
}, 30_000)

afterAll(async () => {
  await stopProcesses()
  await removeTempDirs()
})

describe('README examples run as written (#13)', () => {
  const examples = blocksOf('Quick start', 'sh').flatMap(curlExamples)

  it('finds the quick start’s curl examples', () => {
    expect(examples.length).toBeGreaterThanOrEqual(8)
  })

  it.each(examples.map((e) => [e.command.slice(0, 110), e] as const))('%s', (_, example) => runExample(example, base))

  const statefulExamples = blocksOf('Stateful mode', 'sh').flatMap(curlExamples)

  it('finds the Stateful mode walk-through: create, list, read, patch, delete, state, reset', () => {
    expect(statefulExamples.length).toBeGreaterThanOrEqual(10)
    const methods = statefulExamples.map((e) => requestOf(shellWords(e.command), '').init.method)
    expect(new Set(methods)).toEqual(new Set(['GET', 'POST', 'PATCH', 'DELETE']))
  })

  // In order: each step sees the data the ones before it left.
  it.each(statefulExamples.map((e) => [e.command.slice(0, 110), e] as const))('stateful: %s', (_, example) =>
    runExample(example, statefulBase),
  )

  const rulesExamples = blocksOf('Conditions, sequences and stubs', 'sh').flatMap(curlExamples)

  it('finds the conditions and stubs examples: a conditional rule either way, a stub created, listed and removed', () => {
    expect(rulesExamples.length).toBeGreaterThanOrEqual(5)
    const methods = rulesExamples.map((e) => requestOf(shellWords(e.command), '').init.method)
    expect(new Set(methods)).toEqual(new Set(['GET', 'POST', 'DELETE']))
  })

  // In order, on the section's own scenarios file: the stub the POST creates is the one listed and removed.
  it.each(rulesExamples.map((e) => [e.command.slice(0, 110), e] as const))('rules: %s', (_, example) =>
    runExample(example, rulesBase),
  )

  async function runExample(example: CurlExample, base: string): Promise<void> {
    const { url, init, showsStatus } = requestOf(shellWords(example.command), base)
    const response = await fetch(url, init)
    const text = await response.text()
    const written = example.expected.filter((line) => /^(HTTP\/1\.1 \d{3}|[{[])/.test(line))
    for (const line of written) {
      if (line.startsWith('HTTP/1.1 ')) {
        expect(showsStatus, 'a status line is shown only with -i').toBe(true)
        expect(`HTTP/1.1 ${response.status} ${response.statusText}`).toBe(line)
      } else {
        // The body as written, before any note in parentheses.
        expect(JSON.parse(text)).toEqual(JSON.parse(line.replace(/\s{2,}\(.*\)$/, '')))
      }
    }
    // An example with no answer written under it must still be answered, not refused.
    if (written.length === 0) expect(response.status, text).toBeLessThan(300)
  }

  it('runs the "From a test" block against the built package, its claims checked where they stand', async () => {
    const [block] = blocksOf('From a test', 'ts')
    const index = pathToFileURL(join(root, 'dist', 'index.js')).href
    const claims: string[] = []
    const program = block!
      .replace("from 'plant-store-mock'", `from '${index}'`)
      .split('\n')
      .map((line) => {
        const claim = /^\/\/ (.*===.*)$/.exec(line)?.[1]
        if (!claim) return line
        return claim
          .split(', ')
          .map((expression) => {
            claims.push(expression)
            return `if (!(${expression})) throw new Error(${JSON.stringify(`README claim fails: ${expression}`)})`
          })
          .join('\n')
      })
      .join('\n')
    expect(claims.length).toBeGreaterThanOrEqual(3)
    const dir = await tempDir('mock-readme-', {})
    const file = join(dir, 'from-a-test.mjs')
    writeFileSync(file, program)
    await import(pathToFileURL(file).href)
  }, 30_000)
})
