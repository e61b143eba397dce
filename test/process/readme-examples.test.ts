/**
 * The examples of the README and of every docs/ page run as written (#13, #28), so that an edit that
 * breaks one fails here.
 *
 * `sh` blocks: each `curl` line (continuation lines joined) is sent to a mock of the built command line,
 * in the page's order, and its answer compared with the lines written under it:
 * - `# HTTP/1.1 201 Created`: the status line (the curl must have `-i`);
 * - `# {json}` or `# [json]`: the body, as JSON; where the line elides with `...`, the body as text must
 *   match it with anything in place of each `...`; `# 201 {json}`: the status, then the body;
 * - a note after two spaces, `  (…)`, is not compared, except `(status 202)`, which is;
 * - `# the receiver prints: …`: the output of the block's `node -e` receiver (below) holds it, `…`
 *   standing for anything;
 * - any other `#` line is prose. A curl with nothing written under it must be answered below 300.
 * A GET whose answer is compared with a pattern is asked again, and a receiver's output read again,
 * every 100 ms for at most 5 s, until it matches: callbacks and webhooks are sent after the answer.
 *
 * Which mock: the page's own (the `mocks` table below: the Garden description with `--stateful` for
 * the stateful page, the Plant Store with the page's scenarios for the conditions page), else the
 * embedded Plant Store; one fresh process per page, on port 0. A block that starts its own set-up runs
 * it, as a reader would: `npm start -- ARGS &` is the built CLI with ARGS (`--port 0` added), and
 * `node -e "…" &` a helper process (a webhook receiver); a port such a helper listens on is replaced,
 * everywhere in the block, by a free one. A block that mentions `curl` and has no example this test can
 * run must say why on the line before its fence, `<!-- not run: why -->`; so must a `ts` block that
 * cannot run.
 *
 * `ts` blocks: each one runs against the built package (TypeScript transpiled, `plant-store-mock`
 * imported from dist/, its exports in scope where the block imports nothing), every `// a === b`
 * comment checked where it stands. A `127.0.0.1:<port>` other than 4010 is a receiver this test
 * starts; a default export is called as vitest calls a global setup, and each URL it provides must
 * answer `/__mock/health`. A default export that is a Vite config (a `vite.config.ts`) is served by a
 * Vite dev server on port 0 whose root holds openapi.yaml and fixtures/: its `/api/__mock/health` must
 * answer 200, and its `POST /api/plants` without credentials the mock's 401.
 */
import { cpSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { AddressInfo } from 'node:net'
import ts from 'typescript'
import { type InlineConfig, createServer as createViteServer } from 'vite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type Spawned,
  cleanEnv,
  cliPath,
  freePort,
  root,
  start,
  stopProcesses,
  waitForOutput,
  within,
} from '../support/processes.js'
import { type Receiver, startReceiver } from '../support/receivers.js'
import { removeTempDirs, tempDir } from '../support/temp-dirs.js'
import { type Block, blocksOf } from '../support/readme-blocks.js'

/** Every page with examples: the README and docs/*.md. */
const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
]

/** The fewest `curl` examples a page has (a page not listed may have none), and the methods they use. */
const least: Record<string, { curls: number; methods?: string[] }> = {
  'README.md': { curls: 6 },
  'docs/how-an-answer-is-chosen.md': { curls: 4 },
  'docs/conditions-and-stubs.md': { curls: 5, methods: ['GET', 'POST', 'DELETE'] },
  // The walk-through: create, list, read, patch, delete, state, reset.
  'docs/stateful-mode.md': { curls: 12, methods: ['GET', 'POST', 'PATCH', 'DELETE'] },
  'docs/callbacks-and-webhooks.md': { curls: 2 },
  'docs/journal-and-admin-api.md': { curls: 3 },
}

/** The `ts` blocks each page runs at least, and the `// a === b` claims they check. */
const leastTs: Record<string, { blocks: number; claims: number }> = {
  'README.md': { blocks: 3, claims: 6 },
  'docs/vite-plugin.md': { blocks: 1, claims: 0 },
  'docs/from-a-test.md': { blocks: 2, claims: 10 },
  'docs/callbacks-and-webhooks.md': { blocks: 1, claims: 2 },
  'docs/docker-and-ci.md': { blocks: 1, claims: 0 },
}

/** The arguments of the mock a page's examples run against, where it is not the embedded Plant Store. */
const mocks: Record<string, () => Promise<string[]>> = {
  // Started as the page says: the Garden description, --stateful.
  'docs/stateful-mode.md': async () => ['test/descriptions/stateful/garden.yaml', '--stateful'],
  // The compose recipe's replicas as one stateful mock: they answer as one (scale-out-recipe.test.ts runs them behind nginx).
  'docs/scale-out.md': async () => ['--stateful'],
  // The Plant Store's fixtures with a scenarios file made of the page's YAML blocks, as a reader would put them there.
  'docs/conditions-and-stubs.md': async () => {
    const dir = await tempDir('mock-docs-rules-', {})
    cpSync(join(root, 'fixtures'), dir, { recursive: true })
    const yaml = blocksOf('docs/conditions-and-stubs.md', undefined, 'yaml').map((block) => block.code)
    writeFileSync(join(dir, 'scenarios.yaml'), yaml.join('\n'))
    return ['--fixtures', dir]
  },
}

interface CurlExample {
  command: string
  /** The `# ...` lines written under it. */
  expected: string[]
}

/** A `sh` block as this test runs it: its set-up (background lines) and its curl examples. */
interface ShBlock {
  /** `npm start -- ARGS &`: the mock this block runs against instead of the page's. */
  mockArgs?: string[]
  /** `node -e "…" &`: the programs of helper processes. */
  helpers: string[]
  /** The ports the helpers listen on, each replaced by a free one everywhere in the block. */
  ports: string[]
  /** Other background lines: a block with curl examples must have none, since this test cannot start them. */
  unknownSetUp: string[]
  examples: CurlExample[]
}

/** A block's set-up once started: the URL its examples go to, its helpers, and its ports as replaced. */
interface Started {
  base: string
  helpers: Spawned[]
  ports: Map<string, string>
}

/** Words as a POSIX shell splits them: single and double quotes, no expansions (the examples use none). */
function shellWords(command: string): string[] {
  const words: string[] = []
  for (const match of command.matchAll(/'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/g))
    words.push(match[1] ?? match[2]?.replace(/\\(.)/g, '$1') ?? match[3]!)
  return words
}

/** Reads a `sh` block: its set-up lines and each `curl` (continuation lines joined) with the comment lines under it. */
function readShBlock(block: Block): ShBlock {
  const code = block.code.replace(/\\\n\s*/g, '')
  const read: ShBlock = {
    helpers: [],
    ports: [...code.matchAll(/\.listen\((\d+)\)/g)].map((m) => m[1]!),
    unknownSetUp: [],
    examples: [],
  }
  for (const line of code.split('\n')) {
    if (line.startsWith('curl ')) read.examples.push({ command: line, expected: [] })
    else if (line.startsWith('# ') && read.examples.length) read.examples.at(-1)!.expected.push(line.slice(2))
    else if (/^npm start -- .*&$/.test(line)) read.mockArgs = shellWords(line.slice('npm start -- '.length, -1))
    else if (/^node -e .*&$/.test(line)) read.helpers.push(shellWords(line.slice(0, -1))[2]!)
    else if (/&\s*$/.test(line)) read.unknownSetUp.push(line)
  }
  return read
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
    else if (word.startsWith('-')) throw new Error(`a curl option this test does not read: ${word}`)
    else url = word.replace(/^(http:\/\/)?(127\.0\.0\.1|localhost):4010/, base)
  }
  if (body !== undefined && !headers.has('content-type'))
    headers.set('content-type', 'application/x-www-form-urlencoded')
  return {
    url,
    init: { method: method ?? (body === undefined ? 'GET' : 'POST'), headers, body },
    showsStatus,
  }
}

/** `written` as a pattern over the whole text: each `...` or `…` stands for anything. */
function patternOf(written: string): RegExp {
  const parts = written.split(/\.\.\.|…/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
  return new RegExp(`^${parts.join('[^]*')}$`)
}

/** Starts the built command line with these arguments (on port 0) and answers its URL. */
async function startCli(args: string[]): Promise<string> {
  const mock: Spawned = start(process.execPath, [cliPath, '--port', '0', ...args], { cwd: root, env: cleanEnv() })
  const [, url] = await waitForOutput(mock, /(http:\/\/127\.0\.0\.1:\d+)/, 20_000, 'the mock to listen')
  return url!
}

/** `text` with each port of the block replaced by the free one its helper listens on. */
function withPorts(text: string, ports: Map<string, string>): string {
  for (const [port, free] of ports) text = text.replaceAll(new RegExp(`\\b${port}\\b`, 'g'), free)
  return text
}

/** Starts a block's set-up: free ports for its helpers' ones, the helpers, and its own mock if it names one. */
async function startBlock(block: ShBlock, pageBase: () => string): Promise<Started> {
  const ports = new Map<string, string>()
  for (const port of block.ports) ports.set(port, String(await freePort()))
  const helpers = block.helpers.map((program) =>
    start(process.execPath, ['-e', withPorts(program, ports)], { cwd: root, env: cleanEnv() }),
  )
  const base = block.mockArgs ? await startCli(block.mockArgs) : pageBase()
  return { base, helpers, ports }
}

/** Runs one curl example against its block's set-up and checks the answer against what is written under it. */
async function runExample(example: CurlExample, { base, helpers, ports }: Started): Promise<void> {
  const { url, init, showsStatus } = requestOf(shellWords(withPorts(example.command, ports)), base)
  const lines = example.expected
    .map((written) => withPorts(written, ports))
    .map((line) => {
      const note = /\s{2,}\((.*)\)$/.exec(line)
      return { text: note ? line.slice(0, note.index) : line, status: /^status (\d{3})$/.exec(note?.[1] ?? '')?.[1] }
    })
  const written = lines.filter(({ text }) => /^(HTTP\/1\.1 \d{3}|\d{3} [{[]|[{[])/.test(text))
  const printed = lines.filter(({ text }) => text.startsWith('the receiver prints: '))
  // A pattern may describe a state that comes after the answer (a delivery made): a GET is asked again.
  const patient = init.method === 'GET' && written.some(({ text }) => /\.\.\.|…/.test(text))
  await eventually(patient, async () => {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) })
    const text = await response.text()
    for (const { text: line, status } of written) {
      if (status) expect(response.status, text).toBe(Number(status))
      if (line.startsWith('HTTP/1.1 ')) {
        expect(showsStatus, 'a status line is shown only with -i').toBe(true)
        expect(`HTTP/1.1 ${response.status} ${response.statusText}`).toBe(line)
      } else {
        const [, code, body] = /^(?:(\d{3}) )?(.*)$/.exec(line)!
        if (code) expect(response.status, text).toBe(Number(code))
        if (/\.\.\.|…/.test(body!)) expect(text).toMatch(patternOf(body!))
        else expect(JSON.parse(text)).toEqual(JSON.parse(body!))
      }
    }
    // An example with no answer written under it must still be answered, not refused.
    if (written.length === 0) expect(response.status, text).toBeLessThan(300)
  })
  // What a receiver prints comes after the answer: its output is read again until it holds the line.
  for (const { text: line } of printed)
    await eventually(true, async () => {
      const output = helpers.map((helper) => helper.stdout()).join('')
      expect(output.split('\n')).toContainEqual(expect.stringMatching(patternOf(line.slice(21))))
    })
}

/** Runs `check` once, or, if `patient`, again every 100 ms until it passes, for at most 5 s. */
async function eventually(patient: boolean, check: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + 5000
  for (;;) {
    try {
      return await check()
    } catch (error) {
      if (!patient || Date.now() > deadline) throw error
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
}

/** Runs a `ts` block against the built package, checking its `// a === b` claims; answers the claims checked. */
async function runTsBlock(block: Block, page: string, receivers: Receiver[]): Promise<string[]> {
  const index = pathToFileURL(join(root, 'dist', 'index.js')).href
  let code = block.code
  for (const port of new Set([...code.matchAll(/127\.0\.0\.1:(\d+)/g)].map((m) => m[1]!))) {
    if (port === '4010') continue
    const receiver = await startReceiver()
    receivers.push(receiver)
    code = code.replaceAll(`127.0.0.1:${port}`, receiver.origin.slice('http://'.length))
  }
  if (!code.includes("from 'plant-store-mock'"))
    code = `import { createApp, startMockServer, NetworkFault } from 'plant-store-mock'\n${code}`
  // A package the repository installs (the openai client of the Streams section) is imported from
  // its node_modules, as the reader's project would: the block runs from a folder of its own.
  code = code.replace(/from '([^'./][^']*)'/g, (found, name: string) =>
    name.startsWith('plant-store-mock') || name.startsWith('node:') ? found : `from '${import.meta.resolve(name)}'`,
  )
  const claims: string[] = []
  code = code
    .replaceAll("from 'plant-store-mock'", `from '${index}'`)
    .replaceAll("from 'plant-store-mock/msw'", `from '${pathToFileURL(join(root, 'dist', 'msw.js')).href}'`)
    .replaceAll("from 'plant-store-mock/vite'", `from '${pathToFileURL(join(root, 'dist', 'vite.js')).href}'`)
    .split('\n')
    .map((line) => {
      const claim = /^\/\/ (.*===.*)$/.exec(line)?.[1]
      if (!claim) return line
      return claim
        .split(', ')
        .map((expression) => {
          claims.push(expression)
          return `if (!(${expression})) throw new Error(${JSON.stringify(`${page} claim fails: ${expression}`)})`
        })
        .join('\n')
    })
    .join('\n')
  const program = ts.transpileModule(code, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  }).outputText
  const dir = await tempDir('mock-docs-ts-', {})
  const file = join(dir, 'block.mjs')
  writeFileSync(file, program)
  const module = (await import(pathToFileURL(file).href)) as { default?: unknown }
  if (isViteConfig(module.default)) await serveViteConfig(module.default, dir)
  if (typeof module.default === 'function') {
    // A global setup: called with a project whose provide() keeps the values, its teardown after.
    const provided = new Map<string, unknown>()
    const project = { provide: (key: string, value: unknown) => void provided.set(key, value) }
    const teardown = (await (module.default as (p: typeof project) => unknown)(project)) as (() => unknown) | undefined
    try {
      expect(provided.size, 'a global setup provides what the tests read').toBeGreaterThan(0)
      for (const value of provided.values()) {
        if (typeof value !== 'string' || !value.startsWith('http')) continue
        const health = await fetch(`${value}/__mock/health`, { signal: AbortSignal.timeout(5000) })
        expect(health.status).toBe(200)
      }
    } finally {
      await teardown?.()
    }
  }
  return claims
}

function isViteConfig(value: unknown): value is InlineConfig {
  return typeof value === 'object' && value !== null && Array.isArray((value as InlineConfig).plugins)
}

/** A `vite.config.ts` block's config on a Vite dev server in `dir`, beside the Plant Store's description and fixtures. */
async function serveViteConfig(config: InlineConfig, dir: string): Promise<void> {
  cpSync(join(root, 'openapi.yaml'), join(dir, 'openapi.yaml'))
  cpSync(join(root, 'fixtures'), join(dir, 'fixtures'), { recursive: true })
  const server = await createViteServer({
    ...config,
    root: dir,
    configFile: false,
    logLevel: 'silent',
    cacheDir: join(dir, '.vite'),
    server: { ...config.server, host: '127.0.0.1', port: 0 },
  })
  try {
    await within(10_000, 'the Vite dev server to listen', server.listen())
    const { port } = server.httpServer!.address() as AddressInfo
    const health = await fetch(`http://127.0.0.1:${port}/api/__mock/health`, { signal: AbortSignal.timeout(5000) })
    expect(health.status).toBe(200)
    const anonymous = await fetch(`http://127.0.0.1:${port}/api/plants`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"id":1,"name":"Fern"}',
      signal: AbortSignal.timeout(5000),
    })
    expect(anonymous.status).toBe(401)
    expect(await anonymous.json()).toMatchObject({ error: 401 })
  } finally {
    await server.close()
  }
}

const receivers: Receiver[] = []

afterAll(async () => {
  await stopProcesses()
  await Promise.all(receivers.map((receiver) => receiver.close()))
  await removeTempDirs()
})

describe.each(pages)('the examples of %s run as written (#13, #28)', (page) => {
  const shBlocks = blocksOf(page, undefined, 'sh')
  const tsBlocks = blocksOf(page, undefined, 'ts')
  const blocks = shBlocks.filter((block) => !block.notRun).map(readShBlock)
  const examples = blocks.flatMap((block, index) => block.examples.map((example) => ({ ...example, block: index })))
  const started: Started[] = []

  beforeAll(async () => {
    if (!examples.length) return
    let pageBase: string | undefined
    const basePage = () => pageBase!
    if (blocks.some((block) => block.examples.length && !block.mockArgs))
      pageBase = await startCli(await (mocks[page]?.() ?? Promise.resolve([])))
    for (const block of blocks) started.push(await startBlock(block, basePage))
  }, 30_000)

  it('has its examples, each runnable or marked as not run', () => {
    for (const block of shBlocks.filter((b) => b.code.includes('curl') && !b.notRun))
      expect(block.code, 'a block with curl and no example this test runs: mark it <!-- not run: why -->').toMatch(
        /^curl /m,
      )
    for (const block of blocks.filter((b) => b.examples.length))
      expect(block.unknownSetUp, 'a set-up this test cannot start, before curl examples').toEqual([])
    expect(examples.length).toBeGreaterThanOrEqual(least[page]?.curls ?? 0)
    const methods = least[page]?.methods
    if (methods)
      expect(new Set(examples.map((e) => requestOf(shellWords(e.command), '').init.method))).toEqual(new Set(methods))
  })

  // In order: each step sees what the ones before it left (a stub created, then listed and removed).
  it.each(examples.map((e) => [e.command.slice(0, 110), e] as const))('%s', (_, example) =>
    within(12_000, example.command, runExample(example, started[example.block]!)),
  )

  it('runs each ts block against the built package, its claims checked where they stand', async () => {
    const run = tsBlocks.filter((block) => !block.notRun)
    expect(run.length).toBeGreaterThanOrEqual(leastTs[page]?.blocks ?? 0)
    const claims: string[] = []
    for (const block of run) claims.push(...(await runTsBlock(block, page, receivers)))
    expect(claims.length).toBeGreaterThanOrEqual(leastTs[page]?.claims ?? 0)
  }, 30_000)
})

describe('the README’s first screen (#28)', () => {
  it('shows the quick start, how to serve your own description and how to force the 400', () => {
    const screen = readFileSync(join(root, 'README.md'), 'utf8').split('\n').slice(0, 45).join('\n')
    expect(screen).toContain('npm ci && npm start')
    expect(screen).toMatch(/^npm test/m)
    expect(screen).toMatch(/^npm start -- \S+\.yaml/m)
    expect(screen).toContain("-H 'Prefer: code=400'")
  })
})

describe('examples marked as not run', () => {
  it('say why, and are few', () => {
    const skipped = pages.flatMap((page) =>
      [...blocksOf(page, undefined, 'sh'), ...blocksOf(page, undefined, 'ts')]
        .filter((block) => block.notRun)
        .map((block) => `${page}: ${block.notRun}`),
    )
    for (const reason of skipped) expect(reason).toMatch(/: \S.{10,}/)
    // Six: the README's browser page (MSW's worker) runs only in a browser; Testcontainers needs a docker engine.
    expect(skipped.length, skipped.join('\n')).toBeLessThanOrEqual(6)
  })
})
