import { cpSync, readFileSync, readdirSync, symlinkSync } from 'node:fs'
import { join, posix } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse as parseYaml } from 'yaml'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLOSE_GRACE_MS } from '../../src/node/server.js'
import { freePort, root, start, startedUrl, stopProcesses, within } from '../support/processes.js'
import { removeTempDirs, tempDirSync } from '../support/temp-dirs.js'

/**
 * The Docker image without a docker engine (issue #6): the final stage of the Dockerfile is read,
 * its COPY lines are replayed into a temporary folder standing for WORKDIR, and its ENTRYPOINT/CMD
 * runs there with only the image's ENV (PORT=0, so that no fixed port is used). Nothing is restated
 * here, so the test follows the Dockerfile when it changes.
 * @note `RUN npm ci --omit=dev` is not replayed: node_modules is a link to this clone's. The packed
 * package test installs the production dependencies alone.
 */
const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8')

interface Instruction {
  keyword: string
  args: string
}

interface Stage {
  name?: string
  instructions: Instruction[]
}

/** Instructions per stage; continuation lines joined, comments dropped. */
function parseDockerfile(text: string): Stage[] {
  const logical = text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
  const stages: Stage[] = []
  for (const line of logical) {
    const [, keyword = '', args = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? []
    if (keyword.toUpperCase() === 'FROM') stages.push({ name: /\bAS\s+(\S+)$/i.exec(args)?.[1], instructions: [] })
    stages.at(-1)?.instructions.push({ keyword: keyword.toUpperCase(), args })
  }
  return stages
}

const stages = parseDockerfile(dockerfile)
const finalStage = stages.at(-1)!
const all = (keyword: string) => finalStage.instructions.filter((i) => i.keyword === keyword)
const last = (keyword: string) => all(keyword).at(-1)

/** `ENV A=1 B=2` (the key=value form, values without spaces). */
function imageEnv(): Record<string, string> {
  const env: Record<string, string> = {}
  for (const { args } of all('ENV')) {
    for (const pair of args.split(/\s+/)) {
      const [, key, value = ''] = /^([^=]+)=(.*)$/.exec(pair) ?? []
      if (!key) throw new Error(`ENV ${args}: only the KEY=value form is read here`)
      env[key] = value.replace(/^"(.*)"$/, '$1')
    }
  }
  return env
}

/** The exec form only: the shell form would put /bin/sh, not node, at PID 1. */
function execForm(instruction: Instruction | undefined, what: string): string[] {
  if (!instruction) return []
  const json = instruction.args.replace(/^(--\S+\s+)*CMD\s+/, '')
  if (!json.startsWith('[')) throw new Error(`${what} must use the exec form ["node", ...], got: ${instruction.args}`)
  return JSON.parse(json) as string[]
}

/** What `docker run image` executes: ENTRYPOINT followed by CMD. */
const command = [...execForm(last('ENTRYPOINT'), 'ENTRYPOINT'), ...execForm(last('CMD'), 'CMD')]
const healthcheck = execForm(last('HEALTHCHECK'), 'HEALTHCHECK')
const workdir = last('WORKDIR')?.args ?? '/'
const buildWorkdir = (name: string) =>
  stages
    .find((s) => s.name === name)
    ?.instructions.filter((i) => i.keyword === 'WORKDIR')
    .at(-1)?.args ?? '/'

let app: string

/** Replays the final stage's COPY lines: from the clone, or (--from=build) from the build's output here. */
function stageImage(into: string): void {
  for (const { args } of all('COPY')) {
    const words = args.split(/\s+/)
    const from = words.find((w) => w.startsWith('--from='))?.slice('--from='.length)
    const paths = words.filter((w) => !w.startsWith('--'))
    const destination = paths.pop()!
    for (const source of paths) {
      const inClone = from ? posix.relative(buildWorkdir(from), posix.resolve(buildWorkdir(from), source)) : source
      const target = destination.endsWith('/') ? posix.join(destination, posix.basename(source)) : destination
      cpSync(join(root, inClone), join(into, posix.resolve(workdir, target).slice(workdir.length)), { recursive: true })
    }
  }
  symlinkSync(join(root, 'node_modules'), join(into, 'node_modules'), 'dir')
}

/** The container's environment: the image's ENV and a PATH, nothing of the test runner's. */
function containerEnv(overrides: Record<string, string> = {}): Record<string, string> {
  // The image's MOCK_URL_FILE is under /tmp: here, one of this test's own.
  const urlFile = { MOCK_URL_FILE: join(app, 'mock.url') }
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: app, ...imageEnv(), ...urlFile, ...overrides }
}

function run(argv: string[], env: Record<string, string>) {
  return start(argv[0]!, argv.slice(1), { cwd: app, env })
}

async function listeningPort(mock: ReturnType<typeof run>): Promise<number> {
  return Number(new URL(await startedUrl(mock, 10_000)).port)
}

/** Runs the HEALTHCHECK command as docker would, against the given port; resolves with its exit code. */
async function healthcheckExit(port: number): Promise<number | string> {
  return within(10_000, 'the health check', run(healthcheck, containerEnv({ PORT: String(port) })).exited)
}

beforeAll(() => {
  app = tempDirSync('mock-image-')
  stageImage(app)
}, 120_000)

afterAll(async () => {
  await stopProcesses()
  await removeTempDirs()
})

describe('the Docker image entrypoint, run as the container runs it', () => {
  it('declares a node entrypoint, a non-root user, HOST 0.0.0.0, PORT 4010, port 4010 and a node health check #6', () => {
    expect(command.slice(0, 2)).toEqual(['node', 'dist/cli.js'])
    expect(last('USER')?.args).toMatch(/^(?!root\b|0\b)\S+/)
    expect(imageEnv()).toMatchObject({ HOST: '0.0.0.0', PORT: '4010' })
    expect(last('EXPOSE')?.args).toBe('4010')
    expect(healthcheck[0]).toBe('node')
    expect(all('RUN').some((r) => /npm ci\b.*--omit=dev/.test(r.args))).toBe(true)
  })

  it('passes its health check, answers POST /plants from the embedded fixtures and exits 0 on SIGTERM after finishing a request in flight #6', async () => {
    const mock = run(command, containerEnv({ PORT: '0' }))
    const port = await listeningPort(mock)
    expect(mock.stdout()).toContain('listening on http://0.0.0.0:')

    expect(await healthcheckExit(port)).toBe(0)

    const post = (headers: Record<string, string> = {}) =>
      fetch(`http://127.0.0.1:${port}/plants`, {
        method: 'POST',
        headers: { authorization: 'Bearer t', 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ id: 1, name: 'Fern' }),
        signal: AbortSignal.timeout(5000),
      })
    const res = await post()
    expect(res.status).toBe(200)
    // fixtures/addPlant/200.json echoes the name: the fixtures were copied into the image.
    expect(await res.json()).toEqual({ name: 'Fern' })

    const delayed = post({ prefer: 'delay=300' })
    await new Promise((resolve) => setTimeout(resolve, 100))
    mock.child.kill('SIGTERM')
    expect((await delayed).status).toBe(200)
    expect(await within(10_000, 'the exit after SIGTERM', mock.exited)).toBe(0)
    expect(mock.stdout()).toContain('SIGTERM: finishing in-flight requests')

    // Once the mock is gone, the same health check reports it unhealthy.
    expect(await healthcheckExit(port)).toBe(1)
  })

  it('passes its health check when --port moves the mock off PORT: it probes the URL the mock wrote (#36 §12)', async () => {
    const port = await freePort()
    const mock = run([...command, '--port', String(port)], containerEnv())
    expect(await listeningPort(mock)).toBe(port)
    expect(imageEnv().PORT).toBe('4010')
    expect(readFileSync(join(app, 'mock.url'), 'utf8')).toBe(`http://127.0.0.1:${port}\n`)
    expect(await within(10_000, 'the health check', run(healthcheck, containerEnv()).exited)).toBe(0)
    mock.child.kill('SIGTERM')
    expect(await within(10_000, 'the exit after SIGTERM', mock.exited)).toBe(0)
    expect(await within(10_000, 'the health check', run(healthcheck, containerEnv()).exited)).toBe(1)
  })

  it('serves a mounted description named by MOCK_SPEC instead of the embedded one #6', async () => {
    const spec = fileURLToPath(new URL('../descriptions/library.yaml', import.meta.url))
    const mock = run(command, containerEnv({ PORT: '0', MOCK_SPEC: spec }))
    const port = await listeningPort(mock)
    expect(mock.stdout()).toMatch(/Library .*mock listening on .*GET \/books/)
    const books = await fetch(`http://127.0.0.1:${port}/books`, { signal: AbortSignal.timeout(5000) })
    expect(books.status).toBe(200)
    expect(mock.stdout()).not.toContain('POST /plants')
    mock.child.kill('SIGTERM')
    expect(await within(10_000, 'the exit after SIGTERM', mock.exited)).toBe(0)
  })
})

describe('the Docker image build and stop', () => {
  const buildStageName = /--from=(\S+)/.exec(all('COPY').find((i) => i.args.includes('--from='))!.args)![1]!
  const buildStage = stages.find((stage) => stage.name === buildStageName)!
  const buildRuns = buildStage.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args)

  it('installs in the build stage only what the build needs: the production dependencies, TypeScript and @types/* (#13)', async () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>
      devDependencies: Record<string, string>
      peerDependencies: Record<string, string>
    }
    // Every install in the build stage runs after keep-build-dependencies.mjs has trimmed package.json.
    const installs = buildRuns.filter((run) => /\bnpm (ci|install|i)\b/.test(run))
    expect(installs.length).toBeGreaterThan(0)
    for (const run of installs) expect(run).toMatch(/^node keep-build-dependencies\.mjs && npm install\b/)
    expect(
      buildStage.instructions.some(
        (i) => i.keyword === 'COPY' && i.args.split(/\s+/).includes('scripts/keep-build-dependencies.mjs'),
      ),
    ).toBe(true)

    const dir = tempDirSync('mock-build-stage-')
    cpSync(join(root, 'package.json'), join(dir, 'package.json'))
    // The script as the build stage runs it: in WORKDIR, on the package.json copied there.
    const trimming = start(process.execPath, [join(root, 'scripts/keep-build-dependencies.mjs')], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '' },
    })
    expect(await within(10_000, 'keep-build-dependencies.mjs', trimming.exited)).toBe(0)
    const trimmed = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as typeof manifest
    expect(Object.keys(trimmed.devDependencies).sort()).toEqual(
      Object.keys(manifest.devDependencies)
        .filter((name) => name === 'typescript' || name.startsWith('@types/') || name in manifest.peerDependencies)
        .sort(),
    )
    expect(trimmed.devDependencies.typescript).toBe(manifest.devDependencies.typescript)
    for (const tool of ['vitest', '@stoplight/prism-cli', 'autocannon', 'fast-check'])
      expect(trimmed.devDependencies).not.toHaveProperty(tool)
    expect(trimmed.dependencies).toEqual(manifest.dependencies)
    // What src/ imports the build must find installed: every bare import is a production dependency,
    // or a peer kept for its types (msw: only `plant-store-mock/msw` imports it, where the user has it).
    for (const name of importedPackages(join(root, 'src')))
      expect([...Object.keys(trimmed.dependencies), ...Object.keys(manifest.peerDependencies)], name).toContain(name)
    for (const peer of Object.keys(manifest.peerDependencies)) expect(trimmed.devDependencies).toHaveProperty(peer)
  })

  it('carries the licence: LICENSE in the final stage, and the licence label (#13)', () => {
    const license = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { license: string }).license
    expect(readFileSync(join(app, 'LICENSE'), 'utf8')).toBe(readFileSync(join(root, 'LICENSE'), 'utf8'))
    expect(
      all('LABEL')
        .map((i) => i.args)
        .join(' '),
    ).toContain(`org.opencontainers.image.licenses="${license}"`)
  })

  it('drains in-flight requests for less than the 10 s docker stop waits before SIGKILL (#13)', () => {
    expect(last('STOPSIGNAL')).toBeUndefined()
    expect(CLOSE_GRACE_MS).toBeLessThan(DOCKER_STOP_GRACE_MS)
  })
})

/** `docker stop`'s wait between SIGTERM and SIGKILL, unless `--time` (or compose's `stop_grace_period`) says otherwise. */
const DOCKER_STOP_GRACE_MS = 10_000

/** The packages `src/` imports by name (`hono/cors` → `hono`, `@scope/x/y` → `@scope/x`), `node:` modules aside. */
function importedPackages(dir: string): Set<string> {
  const names = new Set<string>()
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue
    const text = readFileSync(join(entry.parentPath, entry.name), 'utf8')
    // `from` as a word outside quotes: `'scenario_bad_from', message` and `'from']` are no imports.
    for (const [, specifier] of text.matchAll(/(?<![\w$'])(?:from|import\(|require\()\s*'([^'.][^']*)'/g)) {
      if (specifier!.startsWith('node:')) continue
      const parts = specifier!.split('/')
      names.add(specifier!.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!)
    }
  }
  return names
}

describe('docker-compose.yml', () => {
  const text = readFileSync(join(root, 'docker-compose.yml'), 'utf8')
  const compose = parseYaml(text) as { services: Record<string, any> }
  const [mockName, mock] = Object.entries(compose.services).find(([, service]) => service.build === '.')!

  it('builds the mock from this folder and starts the consumer only once the mock is healthy #6', () => {
    const consumers = Object.values(compose.services).filter(
      (service) => service.depends_on?.[mockName]?.condition === 'service_healthy',
    )
    expect(consumers).toHaveLength(1)
    expect(consumers[0].environment.API_URL).toBe(`http://${mockName}:4010`)
  })

  it('publishes no port of the mock on the host, and shows how to in a comment (#13)', () => {
    expect(mock.ports).toBeUndefined()
    expect(text).toMatch(/^ {4}# ports:\n {4}# {3}- "(127\.0\.0\.1:)?4010:4010"$/m)
  })

  it('gives the mock no shorter stop grace period than its drain (#13)', () => {
    const grace =
      mock.stop_grace_period === undefined ? DOCKER_STOP_GRACE_MS : parseDuration(String(mock.stop_grace_period))
    expect(CLOSE_GRACE_MS).toBeLessThan(grace)
  })
})

/** Compose durations as this file may write them: `15s`, `1m30s`, `500ms`. */
function parseDuration(text: string): number {
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }
  let total = 0
  for (const [, value, unit] of text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) total += Number(value) * units[unit!]!
  return total
}
