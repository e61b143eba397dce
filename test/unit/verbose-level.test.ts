import { describe, expect, it } from 'vitest'
import { type ConsoleLogger } from '../../src/common/log.js'
import { type VerboseLevel, filterByLevel, optionsForLevel } from '../../src/command-line/verbose-level.js'

/** A console logger that records what reaches it, by kind. */
function recordingLogger() {
  const lines: string[] = []
  const logger: ConsoleLogger = {
    info: (message) => lines.push(`info ${message}`),
    warn: (message) => lines.push(`warn ${message}`),
    error: (message) => lines.push(`error ${message}`),
    request: () => lines.push('request'),
    flush: () => {},
    droppedLines: () => 0,
  }
  return { logger, lines }
}

/** What each level lets through of one start line, one warning and one error met while serving. */
function printedAt(level: VerboseLevel): string[] {
  const { logger, lines } = recordingLogger()
  const filtered = filterByLevel(logger, level)
  filtered.info('listening')
  filtered.warn('example not served')
  filtered.error('unexpected failure')
  return lines
}

describe('Prism’s verbose levels (#13)', () => {
  it.each([
    ['trace', ['info listening', 'warn example not served', 'error unexpected failure']],
    ['debug', ['info listening', 'warn example not served', 'error unexpected failure']],
    ['info', ['info listening', 'warn example not served', 'error unexpected failure']],
    ['warn', ['info listening', 'warn example not served', 'error unexpected failure']],
    ['error', ['info listening', 'error unexpected failure']],
    ['fatal', ['info listening']],
    ['silent', []],
  ] as Array<[VerboseLevel, string[]]>)('%s prints %j', (level, printed) => {
    expect(printedAt(level)).toEqual(printed)
  })

  it('asks for stacks at trace and debug, and drops request lines from warn on', () => {
    expect(optionsForLevel('trace')).toEqual({ debug: true })
    expect(optionsForLevel('info')).toEqual({})
    expect(optionsForLevel('warn')).toEqual({ quiet: true })
    expect(optionsForLevel('silent')).toEqual({ quiet: true })
  })
})
