import type { ConsoleLogger } from '../common/log.js'

/** Prism's `--verboseLevel` words (pino's levels, and `silent`), the most verbose first. */
export const VERBOSE_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const

export type VerboseLevel = (typeof VERBOSE_LEVELS)[number]

export function isVerboseLevel(word: string): word is VerboseLevel {
  return (VERBOSE_LEVELS as readonly string[]).includes(word)
}

/**
 * What a level asks of the mock's own options: `trace` and `debug` log the stacks of unexpected
 * errors (`debug`); `warn` and quieter levels drop the request lines (`quiet`), which are the
 * mock's info-level lines.
 */
export function optionsForLevel(level: VerboseLevel): { debug?: true; quiet?: true } {
  const rank = VERBOSE_LEVELS.indexOf(level)
  if (rank <= VERBOSE_LEVELS.indexOf('debug')) return { debug: true }
  if (rank >= VERBOSE_LEVELS.indexOf('warn')) return { quiet: true }
  return {}
}

const noop = () => {}

/**
 * The console logger without the lines a level hides: warnings from `error` on, errors met while
 * serving from `fatal` on, and with `silent` everything, the start line included. Up to `fatal` the
 * start line stays: scripts and supervisors wait for it. A start-up failure is not this logger's to
 * hide; the CLI prints it whatever the level.
 */
export function filterByLevel(logger: ConsoleLogger, level: VerboseLevel): ConsoleLogger {
  const rank = VERBOSE_LEVELS.indexOf(level)
  return {
    ...logger,
    info: level === 'silent' ? noop : logger.info,
    warn: rank > VERBOSE_LEVELS.indexOf('warn') ? noop : logger.warn,
    error: rank > VERBOSE_LEVELS.indexOf('error') ? noop : logger.error,
  }
}
