import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { parseCommandLine, seedOf } from '../../src/command-line/parse-command-line.js'

/**
 * Prism's command line, judged by Prism itself (#13): the `mock` command of @stoplight/prism-cli
 * (a devDependency) is given to its own parser, yargs, in strict mode as its bin runs it, with a
 * handler that only keeps what it read. A vector Prism accepts must be accepted here with the
 * same meaning, and one it refuses must be refused here too.
 */
const fromPrism = createRequire(import.meta.resolve('@stoplight/prism-cli/package.json'))
const yargs = fromPrism('yargs/yargs') as (argv: string[]) => any
const mockCommand = fromPrism('@stoplight/prism-cli/dist/commands/mock').default

type PrismReading = { accepted: true; argv: Record<string, any> } | { accepted: false; message: string }

function prismReads(argv: string[]): PrismReading {
  let read: Record<string, any> | undefined
  let message: string | undefined
  yargs(argv)
    .scriptName('prism')
    .strict()
    .exitProcess(false)
    .command({ ...mockCommand, handler: (parsed: Record<string, any>) => void (read = parsed) })
    .demandCommand(1, '')
    .fail((msg: string | null, error: Error | undefined) => void (message = msg ?? String(error)))
    .parse()
  return message === undefined && read
    ? { accepted: true, argv: read }
    : { accepted: false, message: message ?? 'no command' }
}

function mockReads(argv: string[]) {
  try {
    const command = parseCommandLine(argv, {})
    return command.action === 'serve' ? { accepted: true as const, command } : { accepted: false as const }
  } catch (error) {
    return { accepted: false as const, message: (error as Error).message }
  }
}

/** Command lines a Prism user types, from docs/coming-from-prism.md and Prism's own docs. */
const ACCEPTED = [
  ['mock', 'openapi.yaml'],
  ['mock', 'openapi.yaml', '-p', '0', '-d', '--seed', 'abc', '--cors', 'false', '--errors', '-m', '-v', 'warn'],
  ['mock', 'openapi.yaml', '-p', '4010', '-h', '0.0.0.0'],
  ['mock', '-h', '0.0.0.0', 'openapi.yaml', '--port=4011', '--cors=false'],
  ['mock', 'openapi.yaml', '--dynamic', '--seed', '42', '--verboseLevel', 'debug'],
  ['mock', 'openapi.yaml', '--json-schema-faker-fillProperties=false', '--ignoreExamples'],
  ['mock', 'openapi.yaml', '--json-schema-faker-fillProperties', 'false', '-v', 'silent'],
  ['mock', 'openapi.yaml', '--no-cors', '--errors', 'true', '--multiprocess', '--verbose-level', 'error'],
  ['mock', 'openapi.yaml', '--cors', 'true', '-d', 'false', '--ignore-examples', '-v', 'trace'],
  ['mock', 'openapi.yaml', '--seed', 'my seed', '-v', 'fatal', '--json-schema-faker-fill-properties'],
]

/** Command lines Prism refuses: a typo, a level it does not know, two documents. */
const REFUSED = [
  ['mock', 'openapi.yaml', '--prot', '4010'],
  ['mock', 'openapi.yaml', '-v', 'loud'],
  ['mock', 'a.yaml', 'b.yaml'],
  ['mock', 'openapi.yaml', '--dynamik'],
]

describe('Prism’s command lines, as Prism reads them (#13)', () => {
  it.each(ACCEPTED)('accepts what Prism accepts, with its meaning: %j', (...argv) => {
    const prism = prismReads(argv)
    expect(prism).toMatchObject({ accepted: true })
    const mock = mockReads(argv)
    expect(mock, JSON.stringify(mock)).toMatchObject({ accepted: true })
    if (!prism.accepted || !mock.accepted) return
    const { options, verboseLevel } = mock.command
    const read = prism.argv
    expect(options.spec).toBe(read.document)
    expect(options.port ?? 4010).toBe(read.port)
    expect(options.host ?? '127.0.0.1').toBe(read.host)
    expect(options.cors ?? true).toBe(read.cors)
    expect(options.dynamic ?? false).toBe(read.dynamic)
    expect(options.errors ?? false).toBe(read.errors)
    expect(options.ignoreExamples ?? false).toBe(read.ignoreExamples)
    expect(options.fillProperties).toBe(read['json-schema-faker-fillProperties'])
    expect(verboseLevel ?? 'info').toBe(read.verboseLevel)
    expect(options.seed).toBe(read.seed === null ? undefined : seedOf(read.seed))
  })

  it.each(REFUSED)('refuses what Prism refuses: %j', (...argv) => {
    expect(prismReads(argv)).toMatchObject({ accepted: false })
    expect(mockReads(argv)).toMatchObject({ accepted: false })
  })

  it('takes Prism’s form without the word "mock" too, which Prism itself does not', () => {
    expect(prismReads(['openapi.yaml', '-p', '0'])).toMatchObject({ accepted: false })
    expect(mockReads(['openapi.yaml', '-p', '0'])).toMatchObject({
      accepted: true,
      command: { options: { spec: 'openapi.yaml', port: 0 } },
    })
  })
})
