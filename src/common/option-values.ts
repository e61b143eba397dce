/** Option values written as text, read the same wherever they are written: the command line, options, scenario rules, `Prefer`. */
import { startupErrors } from '../errors/index.js'
import type { Delay } from './config.js'

/** Longest delay accepted anywhere (option, scenario rule, `Prefer: delay=`): ten minutes. */
export const MAX_DELAY_MS = 600_000

/** `250` or `'100-500'` → `{ min, max }` in milliseconds. */
export function parseDelay(value: number | string): Delay {
  const text = String(value).trim()
  const match = /^(\d+)(?:\s*-\s*(\d+))?$/.exec(text)
  const min = Number(match?.[1])
  const max = match?.[2] === undefined ? min : Number(match[2])
  if (!match || max < min || max > MAX_DELAY_MS) {
    throw startupErrors.optionBadDelay(text, MAX_DELAY_MS)
  }
  return { min, max }
}

/** Reads sizes such as `1048576`, `512kb`, `1mb`, `2MiB`. */
export function parseByteSize(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(b|kb|kib|k|mb|mib|m|gb|gib|g)?$/i.exec(text.trim())
  if (!match) throw startupErrors.optionBadSize(text)
  const units: Record<string, number> = {
    b: 1,
    k: 1024,
    kb: 1024,
    kib: 1024,
    m: 1024 ** 2,
    mb: 1024 ** 2,
    mib: 1024 ** 2,
    g: 1024 ** 3,
    gb: 1024 ** 3,
    gib: 1024 ** 3,
  }
  return Math.floor(Number(match[1]) * (units[(match[2] ?? 'b').toLowerCase()] ?? 1))
}
