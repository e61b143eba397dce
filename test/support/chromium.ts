/**
 * Debian's Chromium, driven by playwright-core (which downloads no browser of its own): the tests
 * that need a real browser launch it here, and are skipped with one line where it is not installed
 * (`.ci/run` installs it with apt-get).
 */
import { existsSync } from 'node:fs'
import { type Browser, chromium } from 'playwright-core'

export const CHROMIUM = '/usr/bin/chromium'

export const hasChromium = existsSync(CHROMIUM)

/** Headless, sandbox off (CI runs as root), and none of the browser's own traffic (updates, sync, QUIC probes). */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/** A headless Chromium, within 30 seconds. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 30_000 })
}

/** Says, once, which tests a machine without Chromium skips. */
export function sayWhenSkipped(what: string): void {
  if (!hasChromium) console.log(`${what} skipped: no Chromium at ${CHROMIUM} (.ci/run installs it with apt-get)`)
}
