/**
 * Binary bodies a browser can use (#31 §3): Debian's Chromium, driven by playwright-core, shows each
 * image the mock answers in an <img> (decoded, 1×1) and decodes each sound with Web Audio, from a
 * page of the mock's own origin. Skipped with one line where no Chromium is installed.
 */
import { fileURLToPath } from 'node:url'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type MockServer, startMockServer } from '../../src/index.js'
import { silentLogger } from '../../src/common/log.js'
import { hasChromium, launchChromium, sayWhenSkipped } from '../support/chromium.js'

sayWhenSkipped('binary body browser tests')

/** What the page's <img> and Web Audio give, as far as these tests read them. */
interface PageImage {
  src: string
  decode(): Promise<void>
  naturalWidth: number
  naturalHeight: number
}
interface PageAudio {
  decodeAudioData(bytes: ArrayBuffer): Promise<{ duration: number }>
}

const spec = fileURLToPath(new URL('../descriptions/binary-bodies.yaml', import.meta.url))
let server: MockServer
let browser: Browser | undefined

beforeAll(async () => {
  server = await startMockServer({ spec, port: 0, logger: silentLogger })
  if (hasChromium) browser = await launchChromium()
}, 40_000)
afterAll(async () => {
  await browser?.close()
  await server?.close()
})

describe.skipIf(!hasChromium)('binary bodies in a real browser (#31 §3)', () => {
  it.each(['/png', '/jpeg', '/gif', '/webp', '/svg'])('%s is shown by an <img>, 1×1', async (path) => {
    const page = await browser!.newPage()
    try {
      await page.goto(`${server.url}/__mock/`)
      const size = await page.evaluate(async (src) => {
        // Run in the page: its DOM, which this file's types (Node's) do not describe.
        const page = globalThis as unknown as { Image: new () => PageImage }
        const image = new page.Image()
        image.src = src
        await image.decode()
        return [image.naturalWidth, image.naturalHeight]
      }, `${server.url}${path}`)
      expect(size).toEqual([1, 1])
    } finally {
      await page.close()
    }
  })

  it.each(['/wav', '/mp3'])('%s is decoded by Web Audio: a sound of some length', async (path) => {
    const page = await browser!.newPage()
    try {
      await page.goto(`${server.url}/__mock/`)
      const seconds = await page.evaluate(async (src) => {
        const page = globalThis as unknown as { OfflineAudioContext: new (...args: number[]) => PageAudio }
        const bytes = await (await fetch(src)).arrayBuffer()
        const audio = await new page.OfflineAudioContext(1, 1, 44_100).decodeAudioData(bytes)
        return audio.duration
      }, `${server.url}${path}`)
      expect(seconds).toBeGreaterThan(0.05)
    } finally {
      await page.close()
    }
  })

  it('sends each with its Content-Length', async () => {
    for (const path of ['/png', '/pdf', '/mp3', '/bytes']) {
      const response = await fetch(`${server.url}${path}`, { signal: AbortSignal.timeout(5000) })
      const bytes = await response.arrayBuffer()
      expect(Number(response.headers.get('content-length')), path).toBe(bytes.byteLength)
    }
  })
})
