import net from 'node:net'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import type { StartupErrorCode } from '../../src/errors/index.js'
import { runCli, startCli, startedUrl, stopProcesses, within, freePort } from '../support/processes.js'

/**
 * Prism's command line, run as a user runs it (#13): `node dist/cli.js` with Prism's arguments,
 * each server on port 0 (or on a port just handed out by the OS), each child killed after its test.
 */
afterEach(stopProcesses)

const specFile = (name: string) => fileURLToPath(new URL(`../descriptions/${name}`, import.meta.url))
const library = specFile('library.yaml')
/** A stack trace line, as Node prints them. */
const STACK_LINE = /^\s+at .+/m

async function getBooks(url: string, path = '/books', headers: Record<string, string> = {}) {
  const res = await fetch(`${url}${path}`, {
    headers: { 'x-library-key': 'k', ...headers },
    signal: AbortSignal.timeout(5000),
  })
  return { status: res.status, headers: res.headers, body: (await res.json()) as any }
}

/** Exit code 1 and one paragraph on stderr ending in its code, without a stack trace: what every refusal looks like. */
function expectOneParagraphRefusal(
  {
    code,
    stdout,
    stderr,
  }: {
    code: number | string
    stdout: string
    stderr: string
  },
  errorCode: StartupErrorCode,
) {
  expect(code).toBe(1)
  expect(stdout).toBe('')
  expect(stderr).toMatch(/^\[mock\] error: /)
  expect(stderr.trim().endsWith(`[${errorCode}]`), stderr).toBe(true)
  expect(stderr.trim().split('\n')).toHaveLength(1)
  expect(stderr).not.toMatch(STACK_LINE)
}

describe('Prism’s command line, unchanged (#13)', () => {
  it('serves the description given after the word "mock"', async () => {
    const cli = startCli(['mock', library, '-p', '0', '-h', '127.0.0.1'])
    const url = await startedUrl(cli)
    expect(cli.stdout()).toContain('Library 2.0.0 mock listening')
    expect((await getBooks(url)).status).toBe(200)
  })

  it('serves the description given alone, without the word "mock"', async () => {
    const cli = startCli([library, '-p', '0'])
    const url = await startedUrl(cli)
    expect((await getBooks(url)).status).toBe(200)
  })

  it('runs Prism’s full command line: no request lines at -v warn, no CORS headers with --cors false, generated bodies with -d', async () => {
    const cli = startCli([
      'mock',
      library,
      '-p',
      '0',
      '-d',
      '--seed',
      'abc',
      '--cors',
      'false',
      '--errors',
      '-m',
      '-v',
      'warn',
    ])
    const url = await startedUrl(cli)
    const { status, headers, body } = await getBooks(url, '/books', { origin: 'http://app.localhost' })
    expect(status).toBe(200)
    expect(headers.get('access-control-allow-origin')).toBeNull()
    expect(body).not.toEqual([expect.objectContaining({ title: 'The Left Hand of Darkness' }), expect.anything()])
    cli.child.kill('SIGTERM')
    expect(await within(5000, 'the exit after SIGTERM', cli.exited)).toBe(0)
    expect(cli.stdout()).toContain('mock listening on')
    expect(cli.stdout()).not.toMatch(/GET \/books 200/)
  })

  it('generates the same bodies for the same text seed, run after run', async () => {
    const runs = [
      startCli(['mock', library, '-p', '0', '-d', '--seed', 'my seed']),
      startCli(['mock', library, '-p', '0', '-d', '--seed', 'my seed']),
    ]
    const urls = await Promise.all(runs.map((run) => startedUrl(run)))
    const [first, second] = await Promise.all(
      urls.map(async (url) => [await getBooks(url, '/books/1'), await getBooks(url, '/books/2')].map((r) => r.body)),
    )
    expect(second).toEqual(first)
  })

  it('generates only required properties with --json-schema-faker-fillProperties false', async () => {
    const cli = startCli(['mock', library, '-p', '0', '-d', '--json-schema-faker-fillProperties', 'false'])
    const url = await startedUrl(cli)
    const { body } = await getBooks(url, '/books/42')
    expect(Object.keys(body).sort()).toEqual(['id', 'subtitle', 'title'])
  })

  it('generates the bodies the description has examples for with --ignoreExamples', async () => {
    const plain = startCli(['mock', library, '-p', '0'])
    const ignoring = startCli(['mock', library, '-p', '0', '--ignoreExamples'])
    const [plainUrl, ignoringUrl] = await Promise.all([startedUrl(plain), startedUrl(ignoring)])
    expect((await getBooks(plainUrl)).body[0]).toMatchObject({ title: 'The Left Hand of Darkness' })
    expect((await getBooks(ignoringUrl)).body[0]?.title).not.toBe('The Left Hand of Darkness')
  })

  it('prints nothing at all with -v silent, and serves', async () => {
    const port = await freePort()
    const cli = startCli(['mock', library, '-p', String(port), '-v', 'silent'])
    let status = 0
    // Bounded: up to 100 tries, each answered at once or refused at once while the mock starts.
    for (let attempt = 0; attempt < 100 && status !== 200; attempt++) {
      status = await getBooks(`http://127.0.0.1:${port}`).then(
        (r) => r.status,
        () => new Promise<number>((resolve) => setTimeout(() => resolve(0), 100)),
      )
    }
    expect(status).toBe(200)
    cli.child.kill('SIGTERM')
    expect(await within(5000, 'the exit after SIGTERM', cli.exited)).toBe(0)
    expect(cli.stdout() + cli.stderr()).toBe('')
  })

  it('still says why it did not start with -v silent', async () => {
    const missing = specFile('no-such-description.yaml')
    const result = await runCli(['mock', missing, '-p', '0', '-v', 'silent'])
    expectOneParagraphRefusal(result, 'description_unreadable')
    expect(result.stderr).toContain(missing)
  })
})

describe('refusals name what the user wrote (#13)', () => {
  it('suggests --port for --prot', async () => {
    const result = await runCli(['mock', library, '--prot', '4010'])
    expectOneParagraphRefusal(result, 'cli_unknown_flag')
    expect(result.stderr).toContain('--prot. Did you mean --port?')
  })

  it('refuses two descriptions', async () => {
    const result = await runCli(['mock', library, specFile('minimal.json')])
    expectOneParagraphRefusal(result, 'cli_two_descriptions')
    expect(result.stderr).toContain(`"${library}", "${specFile('minimal.json')}"`)
  })

  it('refuses an argument and a --spec that differ', async () => {
    const result = await runCli([library, '--spec', specFile('minimal.json')])
    expectOneParagraphRefusal(result, 'cli_two_descriptions')
    expect(result.stderr).toContain(`"${library}" as an argument and "${specFile('minimal.json')}" with --spec`)
  })

  it('reads Prism’s proxy command: its upstream is checked at start-up like --proxy (#18)', async () => {
    const result = await runCli(['proxy', library, 'ftp://127.0.0.1:9', '-p', '0'])
    expectOneParagraphRefusal(result, 'option_bad_proxy')
    expect(result.stderr).toContain('"ftp://127.0.0.1:9"')
  })

  it.each([
    [{ PORT: 'abc' }, 'cli_bad_value', 'The environment variable PORT takes a whole number, got "abc".'],
    [
      { MOCK_LOG_FORMAT: 'xml' },
      'cli_bad_value',
      'The environment variable MOCK_LOG_FORMAT takes "text" or "json", got "xml".',
    ],
    [
      { MOCK_SCENARIO: 'nope', PORT: '0' },
      'scenario_unknown',
      'That value comes from the environment variable MOCK_SCENARIO.',
    ],
    [
      { MOCK_SPEC: specFile('no-such-description.yaml'), PORT: '0' },
      'description_unreadable',
      'That value comes from the environment variable MOCK_SPEC.',
    ],
    [
      { MOCK_FIXTURES: specFile('no-such-folder'), PORT: '0' },
      'fixture_folder_missing',
      'That value comes from the environment variable MOCK_FIXTURES.',
    ],
  ] satisfies Array<[Record<string, string>, StartupErrorCode, string]>)(
    'names the environment variable, not a flag, for %j',
    async (env, errorCode, message) => {
      const result = await runCli([], env)
      expectOneParagraphRefusal(result, errorCode)
      expect(result.stderr).toContain(message)
      expect(result.stderr).not.toMatch(/--port takes|--log-format takes/)
    },
  )

  it('names PORT when the port it sets is in use', async () => {
    const holder = net.createServer()
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve))
    try {
      const { port } = holder.address() as net.AddressInfo
      const result = await runCli([], { PORT: String(port) })
      expectOneParagraphRefusal(result, 'port_in_use')
      expect(result.stderr).toContain(`Port ${port} on 127.0.0.1`)
      expect(result.stderr).toContain('That value comes from the environment variable PORT.')
    } finally {
      await new Promise((resolve) => holder.close(resolve))
    }
  })
})

describe('--help (#13)', () => {
  it('fits 80 columns, names Swagger 2.0 and shows Prism’s form', async () => {
    const { code, stdout, stderr } = await runCli(['--help'])
    expect(code).toBe(0)
    expect(stderr).toBe('')
    for (const line of stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80)
    expect(stdout).toContain('Swagger 2.0')
    expect(stdout).toContain('Usage: plant-store-mock [mock] [<description>] [options]')
  })
})
