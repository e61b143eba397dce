/**
 * `npm start` as users and scripts run it (#36 §7, §8): a relative description path is read from
 * where npm was run (INIT_CWD), and SIGTERM sent to npm from a script stops the server, port freed.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { cleanEnv, start, startedUrl, stopProcesses, within } from '../support/processes.js'

const root = new URL('../../', import.meta.url).pathname

afterEach(stopProcesses)

const TINY = `openapi: 3.1.0
info: { title: Tiny, version: '2' }
paths:
  /ping: { get: { operationId: ping, responses: { '204': { description: pong } } } }
`

describe('npm start (#36)', () => {
  it('reads a relative description from the folder npm was run in, and stops on a SIGTERM sent to npm', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'npm-start-'))
    writeFileSync(join(folder, 'tiny.yaml'), TINY)
    // As a user in another folder types it: npm finds the package with --prefix; INIT_CWD is the folder.
    const npm = start('npm', ['--prefix', root, 'start', '--', 'tiny.yaml', '--port', '0'], {
      cwd: folder,
      env: cleanEnv(),
    })
    const url = await startedUrl(npm, 30_000)
    expect(npm.stdout()).toContain('Tiny 2 mock listening on')
    expect((await fetch(`${url}/ping`)).status).toBe(204)
    // A script's kill -TERM goes to npm's own process: the server must go with it.
    npm.child.kill('SIGTERM')
    await within(10_000, 'npm start to end', npm.exited)
    await expect(fetch(`${url}/ping`, { signal: AbortSignal.timeout(2_000) })).rejects.toThrow()
  }, 60_000)
})
