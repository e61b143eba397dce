import { readFileSync } from 'node:fs'
import http from 'node:http'
import net from 'node:net'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import type { StartupErrorCode } from '../../src/errors/index.js'
import { responseOf } from '../support/raw-socket.js'
import { runCli, startCli, startedUrl, stopProcesses, waitForOutput, within, freePort } from '../support/processes.js'

/**
 * The bin, as a user runs it: `node dist/cli.js`, built once from the current sources.
 * Every server listens on port 0 (or on a port just taken from the OS), and every child is killed after its test.
 */
const specFile = (name: string) => fileURLToPath(new URL(`../descriptions/${name}`, import.meta.url))
const version = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version

/** A stack trace line, as Node prints them. */
const STACK_LINE = /^\s+at .+/m

afterEach(stopProcesses)

function postPlant(url: string, headers: Record<string, string> = {}) {
  return fetch(`${url}/plants`, {
    method: 'POST',
    headers: { authorization: 'Bearer t', 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ id: 1, name: 'Fern' }),
    signal: AbortSignal.timeout(5000),
  })
}

// Self-contained: the bin under test is always built from the sources under test.

describe('plant-store-mock CLI', () => {
  describe('information', () => {
    it('prints the usage and exits 0 with --help', async () => {
      const { code, stdout, stderr } = await runCli(['--help'])
      expect(code).toBe(0)
      expect(stdout).toContain('Usage: plant-store-mock [mock] [<description>] [options]')
      expect(stdout).toContain('--spec <file>')
      expect(stderr).toBe('')
    })

    it('prints the package version and exits 0 with --version', async () => {
      const { code, stdout } = await runCli(['--version'])
      expect(code).toBe(0)
      expect(stdout).toBe(`${version}\n`)
    })
  })

  describe('start-up failures', () => {
    it('exits 1 on an unknown option with a short message that names it and points to --help', async () => {
      const { code, stdout, stderr } = await runCli(['--no-such-flag', '--port', '0'])
      expect(code).toBe(1)
      expect(stdout).toBe('')
      expect(stderr).toContain('[cli_unknown_flag]')
      expect(stderr).toContain('--no-such-flag')
      expect(stderr).toContain('--help')
      expect(stderr).not.toMatch(STACK_LINE)
      // One paragraph: no blank line inside it.
      expect(stderr.trim()).not.toContain('\n\n')
    })

    it('exits 1 on a bad description with a message naming the file, without a stack trace', async () => {
      const spec = specFile('swagger-2.yaml')
      const { code, stderr } = await runCli(['--spec', spec, '--port', '0'])
      expect(code).toBe(1)
      expect(stderr).toContain('[description_swagger_conversion]')
      expect(stderr).toContain(spec)
      expect(stderr).not.toMatch(STACK_LINE)
    })

    it('exits 1 on a description file that does not exist, naming it', async () => {
      const spec = specFile('no-such-description.yaml')
      const { code, stderr } = await runCli(['--spec', spec, '--port', '0'])
      expect(code).toBe(1)
      expect(stderr).toContain('[description_unreadable]')
      expect(stderr).toContain(spec)
      expect(stderr).toContain('does not exist')
      expect(stderr).not.toMatch(STACK_LINE)
    })

    it('exits 1 with a message about the port when the port is in use', async () => {
      const holder = net.createServer()
      await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve))
      try {
        const { port } = holder.address() as net.AddressInfo
        const { code, stderr } = await runCli(['--port', String(port), '--host', '127.0.0.1'])
        expect(code).toBe(1)
        expect(stderr).toContain('[port_in_use]')
        expect(stderr).toContain(`Port ${port} on 127.0.0.1`)
        expect(stderr).not.toMatch(STACK_LINE)
      } finally {
        await new Promise((resolve) => holder.close(resolve))
      }
    })

    it('exits 1 when --port is not a whole number', async () => {
      const { code, stderr } = await runCli(['--port', 'eighty'])
      expect(code).toBe(1)
      expect(stderr).toContain('[cli_bad_value]')
      expect(stderr).toContain('--port takes a whole number, got "eighty"')
      expect(stderr).not.toMatch(STACK_LINE)
    })
  })

  describe('serving', () => {
    it('serves POST /plants of the embedded Plant Store by default, as npm start does', async () => {
      const cli = startCli(['--port', '0'])
      const url = await startedUrl(cli)
      const res = await postPlant(url)
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual({ name: 'Fern' })
    })

    it('prints exactly one start line naming the description and its operations', async () => {
      const cli = startCli(['--port', '0'])
      const url = await startedUrl(cli)
      const lines = cli.stdout().trim().split('\n')
      expect(lines).toHaveLength(1)
      expect(lines[0]).toBe(`[mock] Plant Store 1.0.0 mock listening on ${url} (POST /plants)`)
    })

    it('serves another description given with --spec', async () => {
      const cli = startCli(['--spec', specFile('library.yaml'), '--port', '0'])
      const url = await startedUrl(cli)
      expect(cli.stdout()).toContain('Library 2.0.0 mock listening')
      const res = await fetch(`${url}/books?limit=2`, { signal: AbortSignal.timeout(5000) })
      expect(res.status).toBe(200)
    })

    it('listens on the port given by the PORT environment variable', async () => {
      const port = await freePort()
      const cli = startCli([], { PORT: String(port) })
      const url = await startedUrl(cli)
      expect(url).toBe(`http://127.0.0.1:${port}`)
      expect((await postPlant(url)).status).toBe(200)
    })

    it('listens on the address given by the HOST environment variable', async () => {
      const cli = startCli([], { PORT: '0', HOST: '0.0.0.0' })
      const url = await startedUrl(cli)
      expect(url).toMatch(/^http:\/\/0\.0\.0\.0:\d+$/)
      const port = new URL(url).port
      expect((await postPlant(`http://127.0.0.1:${port}`)).status).toBe(200)
    })

    it('lets --port win over the PORT environment variable', async () => {
      const cli = startCli(['--port', '0'], { PORT: 'not-a-port' })
      const url = await startedUrl(cli)
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    })
  })

  describe('stopping', () => {
    it('exits 0 within one second on SIGTERM while idle', async () => {
      const cli = startCli(['--port', '0'])
      await startedUrl(cli)
      const sent = Date.now()
      cli.child.kill('SIGTERM')
      const code = await within(1000, 'exit after SIGTERM', cli.exited)
      expect(code).toBe(0)
      expect(Date.now() - sent).toBeLessThan(1000)
    })

    // Five starts, each bounded at 5 s: the test's own bound is theirs, not vitest's default 15 s.
    it('handles a SIGTERM sent the moment the start line appears, every time', { timeout: 30_000 }, async () => {
      // Regression: the start line used to be printed before the signal handlers were installed,
      // so a supervisor that signalled on it killed the process by default action (exit by signal).
      for (let attempt = 0; attempt < 5; attempt++) {
        const cli = startCli(['--port', '0'])
        cli.child.stdout!.once('data', () => cli.child.kill('SIGTERM'))
        expect(await within(5000, 'exit after SIGTERM', cli.exited)).toBe(0)
      }
    })

    it('exits 0 within one second on SIGTERM while a keep-alive connection sits idle', async () => {
      const cli = startCli(['--port', '0'])
      const url = await startedUrl(cli)
      const agent = new http.Agent({ keepAlive: true })
      try {
        const status = await new Promise<number>((resolve, reject) => {
          const req = http.request(`${url}/plants`, {
            method: 'POST',
            agent,
            headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
          })
          req.on('response', (res) => res.resume().on('end', () => resolve(res.statusCode!))).on('error', reject)
          req.end('{"id":1,"name":"Fern"}')
        })
        expect(status).toBe(200)
        cli.child.kill('SIGTERM')
        expect(await within(1000, 'exit after SIGTERM', cli.exited)).toBe(0)
      } finally {
        agent.destroy()
      }
    })

    it('finishes an in-flight request with 200 after SIGTERM, then exits 0', async () => {
      const cli = startCli(['--port', '0'])
      const url = await startedUrl(cli)
      const agent = new http.Agent({ keepAlive: true })
      try {
        const req = http.request(`${url}/plants`, {
          method: 'POST',
          agent,
          headers: {
            authorization: 'Bearer t',
            'content-type': 'application/json',
            'transfer-encoding': 'chunked',
            // The server answers "100 Continue" once it has the headers: proof the request is in flight.
            expect: '100-continue',
          },
        })
        const response = responseOf(req)
        await within(5000, '100 Continue', new Promise<void>((resolve) => req.once('continue', resolve)))
        req.write('{"id": 1, ')

        cli.child.kill('SIGTERM')
        await waitForOutput(cli, /SIGTERM: finishing in-flight requests/)
        expect(cli.child.exitCode).toBeNull()

        req.end('"name": "Fern"}')
        const { status, body } = await within(5000, 'the response', response)
        expect(status).toBe(200)
        expect(JSON.parse(body)).toEqual({ name: 'Fern' })
        expect(await within(2000, 'exit after the last response', cli.exited)).toBe(0)
      } finally {
        agent.destroy()
      }
    })

    it('refuses new connections once SIGTERM has been received', async () => {
      const cli = startCli(['--port', '0'])
      const url = await startedUrl(cli)
      cli.child.kill('SIGTERM')
      await within(1000, 'exit after SIGTERM', cli.exited)
      await expect(postPlant(url)).rejects.toThrow()
    })
  })
})

describe('plant-store-mock CLI: the generation budget (#12)', () => {
  const budgetSpec = specFile('generation-budget-options.yaml')
  const textPointer = '#/paths/~1text/get/responses/200/content/application~1json/schema'
  const get = async (url: string, path: string) => {
    const res = await fetch(`${url}${path}`, { signal: AbortSignal.timeout(10_000) })
    return { status: res.status, body: (await res.json()) as { message?: string } }
  }

  it('lists --generation-bytes and --generation-ms in --help, within 80 columns', async () => {
    const { stdout } = await runCli(['--help'])
    const lines = stdout
      .split('\n')
      .filter((line, index, all) => /--generation-/.test(line) || /--generation-/.test(all[index - 1] ?? ''))
    expect(lines).toHaveLength(4)
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80)
  })

  it('reads --generation-bytes as a size: 1kb puts a 2,000-character string beyond it, 4kb serves it', async () => {
    const small = startCli(['--spec', budgetSpec, '--port', '0', '--quiet', '--generation-bytes', '1kb'])
    const large = startCli(['--spec', budgetSpec, '--port', '0', '--quiet', '--generation-bytes', '4kb'])
    const [smallUrl, largeUrl] = await Promise.all([startedUrl(small), startedUrl(large)])
    expect(small.stderr()).toContain(`a schema asks for minLength 2000 (at ${textPointer}/properties/data)`)
    expect(small.stderr()).toContain('(1024 bytes; --generation-bytes raises it)')
    expect(large.stderr()).not.toContain('a schema asks for')
    const refused = await get(smallUrl, '/text')
    expect(refused.status).toBe(500)
    expect(refused.body.message).toContain(textPointer)
    expect((await get(largeUrl, '/text')).status).toBe(200)
  })

  it('reads --generation-ms as milliseconds: 1 stops nested lists with 500, and the next request is answered', async () => {
    const cli = startCli([
      '--spec',
      budgetSpec,
      '--port',
      '0',
      '--quiet',
      '--generation-ms',
      '1',
      '--generation-bytes',
      '16mb',
    ])
    const url = await startedUrl(cli)
    const refused = await get(url, '/cube')
    expect(refused.status).toBe(500)
    expect(refused.body.message).toContain('took longer than the 1 ms the budget allows (--generation-ms raises it)')
    expect(await get(url, '/plant')).toEqual({ status: 200, body: { name: 'Fern' } })
  })

  it('exits 1 naming the flag or the option when a budget is not a positive whole number', async () => {
    const cases: Array<[string[], StartupErrorCode, string]> = [
      [['--generation-ms', 'soon'], 'cli_bad_value', '--generation-ms takes a whole number, got "soon"'],
      [
        ['--generation-ms', '0'],
        'option_bad_generation_ms',
        'generation ms must be a positive whole number of milliseconds, got 0.',
      ],
      [['--generation-bytes', 'lots'], 'cli_bad_value', '--generation-bytes: "lots"'],
      [
        ['--generation-bytes', '0'],
        'option_bad_generation_bytes',
        'generation bytes must be a positive number of bytes, got 0.',
      ],
    ]
    for (const [args, errorCode, message] of cases) {
      const { code, stderr } = await runCli(['--port', '0', ...args])
      expect(code, args.join(' ')).toBe(1)
      expect(stderr, args.join(' ')).toContain(`[${errorCode}]`)
      expect(stderr, args.join(' ')).toContain(message)
      expect(stderr).not.toMatch(STACK_LINE)
    }
  })
})
