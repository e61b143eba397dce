import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const attack = fileURLToPath(new URL('../../bench/attack.mjs', import.meta.url))

/** The short form of `npm run attack` (#12): each attack on a fresh mock process, on loopback, bounded. */
describe('npm run attack -- --quick', () => {
  it('leaves the mock alive and answering as it should after every attack', { timeout: 180_000 }, async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [attack, '--quick', '--json'], {
      timeout: 170_000,
      maxBuffer: 16 * 1024 * 1024,
    }).catch((error) => error)
    const results = JSON.parse(String(stdout).trim().split('\n').at(-1)!) as Array<{
      name: string
      answers: string
      alive: boolean
      sound: boolean
    }>
    expect(results.map((r) => r.name)).toEqual([
      'violations',
      'sessions',
      'held',
      'redos',
      'deep-json',
      'form-repeats',
      'multipart-cut',
      'generation',
      'streams',
      'descriptors',
      'header-values',
      'deep-body',
      'journal-listing',
    ])
    for (const result of results) expect(result, JSON.stringify(result)).toMatchObject({ alive: true, sound: true })
  })
})
