import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CLI_HELP } from '../../src/command-line/cli-help.js'
import { CommandLineError } from '../../src/command-line/command-line-error.js'
import { parseCommandLine, seedOf } from '../../src/command-line/parse-command-line.js'

/** The command line read into options (#13): no process, an environment given per test. */
function optionsOf(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const command = parseCommandLine(argv, env)
  if (command.action !== 'serve') throw new Error(`expected serve, got ${command.action}`)
  return command.options
}

/** The error a command line is refused with, as code and message. */
function refusal(argv: string[], env: NodeJS.ProcessEnv = {}): { code: string; message: string } {
  try {
    parseCommandLine(argv, env)
  } catch (error) {
    expect(error).toBeInstanceOf(CommandLineError)
    return { code: (error as CommandLineError).code, message: (error as Error).message }
  }
  throw new Error(`${argv.join(' ')} was accepted`)
}

describe('the description: an argument, after Prism’s optional "mock" word, or --spec #13', () => {
  it.each([
    [['mock', 'api.yaml', '-p', '4010', '-h', '0.0.0.0']],
    [['api.yaml', '-p', '4010', '-h', '0.0.0.0']],
    [['--spec', 'api.yaml', '-p', '4010', '-h', '0.0.0.0']],
    [['-p', '4010', 'mock', '-h', '0.0.0.0', 'api.yaml']],
  ])('reads %j as api.yaml on 0.0.0.0:4010', (argv) => {
    expect(optionsOf(argv)).toMatchObject({ spec: 'api.yaml', port: 4010, host: '0.0.0.0' })
  })

  it('takes the same file given twice, as an argument and with --spec', () => {
    expect(optionsOf(['mock', './api.yaml', '--spec', resolve('api.yaml')]).spec).toBe('./api.yaml')
  })

  it('serves the embedded description with the "mock" word alone', () => {
    expect(optionsOf(['mock']).spec).toBeUndefined()
  })

  it('lets the argument win over MOCK_SPEC, and reads MOCK_SPEC without one', () => {
    expect(optionsOf(['a.yaml'], { MOCK_SPEC: 'b.yaml' }).spec).toBe('a.yaml')
    expect(optionsOf([], { MOCK_SPEC: 'b.yaml' }).spec).toBe('b.yaml')
  })

  it('refuses two descriptions as arguments, naming both', () => {
    expect(refusal(['mock', 'a.yaml', 'b.yaml'])).toEqual({
      code: 'cli_two_descriptions',
      message:
        'The mock serves one description, and got 2: "a.yaml", "b.yaml". Give one, as an argument or with --spec.',
    })
  })

  it('refuses an argument and a --spec that differ, naming both', () => {
    expect(refusal(['a.yaml', '--spec', 'b.yaml'])).toEqual({
      code: 'cli_two_descriptions',
      message: 'Two descriptions: "a.yaml" as an argument and "b.yaml" with --spec. Give one of them.',
    })
  })

  it('reads Prism’s proxy command as --proxy, with --proxy-timeout in ms or with a unit (#18)', () => {
    const options = optionsOf(['proxy', 'api.yaml', 'https://api.example.com', '--proxy-timeout', '30s'])
    expect(options.spec).toMatch(/api\.yaml$/)
    expect(options.proxy).toBe('https://api.example.com')
    expect(options.proxyTimeoutMs).toBe(30_000)
    expect(optionsOf(['api.yaml', '--proxy', 'http://127.0.0.1:8080', '--proxy-timeout', '250']).proxyTimeoutMs).toBe(
      250,
    )
    expect(optionsOf(['api.yaml'], { MOCK_PROXY: 'http://staging:8080' }).proxy).toBe('http://staging:8080')
    expect(refusal(['api.yaml', '--proxy-timeout', 'soon']).code).toBe('cli_bad_value')
    expect(refusal(['proxy', 'api.yaml', 'https://x', 'extra']).code).toBe('cli_two_descriptions')
    const perOperation = optionsOf([
      'api.yaml',
      '--proxy',
      'http://x',
      '--proxy-only',
      'a,POST /b',
      '--mock-only',
      'c',
      '--fallback',
    ])
    expect(perOperation).toMatchObject({ proxyOnly: ['a', 'POST /b'], mockOnly: ['c'], proxyFallback: true })
  })

  it('takes a URL as the description, as Prism does: it is fetched at start (node/remote-description.ts)', () => {
    const command = parseCommandLine(['mock', 'https://example.com/api.yaml'])
    expect(command.action === 'serve' && command.options.spec).toBe('https://example.com/api.yaml')
  })
})

describe('Prism’s flags, with Prism’s meaning #13', () => {
  it('reads -d and --dynamic as dynamic', () => {
    expect(optionsOf(['-d']).dynamic).toBe(true)
    expect(optionsOf(['--dynamic']).dynamic).toBe(true)
    expect(optionsOf([]).dynamic).toBeUndefined()
  })

  it.each([
    [['--cors=false'], false],
    [['--cors', 'false'], false],
    [['--no-cors'], false],
    [['--cors', 'true'], true],
    [['--cors=true'], true],
    [['--cors'], true],
  ])('reads %j as cors %s, and never takes the true or false for a description', (argv, cors) => {
    expect(optionsOf([...argv, 'api.yaml'])).toMatchObject({ cors, spec: 'api.yaml' })
  })

  it('reads a boolean value after any of Prism’s boolean flags, short ones included', () => {
    expect(optionsOf(['-d', 'false', '--errors', 'true', '-m', 'false', '--ignoreExamples', 'false'])).toMatchObject({
      dynamic: false,
      errors: true,
      ignoreExamples: false,
    })
  })

  it('refuses a boolean flag’s value other than true or false, naming the flag', () => {
    expect(refusal(['--cors=maybe'])).toEqual({
      code: 'cli_bad_value',
      message: '--cors takes true or false (or no value), got "maybe".',
    })
  })

  it('never reads a string flag’s value as a boolean: --token true is a token', () => {
    expect(optionsOf(['--token', 'true', '--cors', 'false'])).toMatchObject({ tokens: ['true'], cors: false })
  })

  it('reads --errors as the errors option', () => {
    expect(optionsOf(['--errors']).errors).toBe(true)
    expect(optionsOf([]).errors).toBeUndefined()
  })

  it('reads --validate strict, report or off as the validate option, and refuses another word, guessing the one meant', () => {
    expect(optionsOf(['--validate', 'report']).validate).toBe('report')
    expect(optionsOf(['--validate=off']).validate).toBe('off')
    expect(optionsOf([]).validate).toBeUndefined()
    expect(refusal(['--validate', 'reprot'])).toEqual({
      code: 'cli_bad_value',
      message: '--validate takes strict, report or off, got "reprot". Did you mean report?',
    })
  })

  it.each([
    [['--json-schema-faker-fillProperties=false']],
    [['--json-schema-faker-fillProperties', 'false']],
    [['--json-schema-faker-fill-properties=false']],
    [['--no-json-schema-faker-fillProperties']],
  ])('reads %j as fillProperties false', (argv) => {
    expect(optionsOf(argv).fillProperties).toBe(false)
  })

  it('reads --ignoreExamples and --ignore-examples as ignoreExamples', () => {
    expect(optionsOf(['--ignoreExamples']).ignoreExamples).toBe(true)
    expect(optionsOf(['--ignore-examples']).ignoreExamples).toBe(true)
  })

  it('accepts -m and --multiprocess, which change nothing: one process answers', () => {
    expect(optionsOf(['-m', 'api.yaml'])).toEqual(optionsOf(['api.yaml']))
    expect(optionsOf(['--multiprocess', 'api.yaml'])).toEqual(optionsOf(['api.yaml']))
  })
})

describe('--seed: a whole number, or any text as Prism takes it #13', () => {
  it('uses a whole number as it is', () => {
    expect(optionsOf(['--seed', '42']).seed).toBe(42)
    expect(seedOf('0')).toBe(0)
  })

  it('maps other text to a whole number, the same every time, and different text to different numbers', () => {
    const seed = optionsOf(['--seed', 'abc']).seed!
    expect(Number.isSafeInteger(seed)).toBe(true)
    expect(seed).toBeGreaterThanOrEqual(0)
    expect(seedOf('abc')).toBe(seed)
    expect(new Set(['abc', 'abd', 'my seed', '-1', '1.5', '', '99999999999999999999'].map(seedOf)).size).toBe(7)
  })

  it('hashes with 32-bit FNV-1a, as docs/command-line.md says, so that other tools can reproduce it', () => {
    expect(seedOf('')).toBe(0x811c9dc5)
    expect(seedOf('a')).toBe(0xe40c292c)
  })
})

describe('-v, --verboseLevel: Prism’s levels onto the mock’s logs #13', () => {
  it.each([
    ['trace', { debug: true }],
    ['debug', { debug: true }],
    ['info', {}],
    ['warn', { quiet: true }],
    ['error', { quiet: true }],
    ['fatal', { quiet: true }],
    ['silent', { quiet: true }],
  ])('reads -v %s as %j', (level, expected) => {
    const command = parseCommandLine(['-v', level], {})
    expect(command).toMatchObject({ action: 'serve', verboseLevel: level })
    const { quiet, debug } = (command as { options: { quiet?: boolean; debug?: boolean } }).options
    expect({ ...(quiet && { quiet }), ...(debug && { debug }) }).toEqual(expected)
  })

  it('takes --verboseLevel and --verbose-level too', () => {
    expect(parseCommandLine(['--verboseLevel', 'warn'], {})).toMatchObject({ verboseLevel: 'warn' })
    expect(parseCommandLine(['--verbose-level=error'], {})).toMatchObject({ verboseLevel: 'error' })
  })

  it('refuses another word, listing Prism’s levels and guessing the one meant', () => {
    expect(refusal(['-v', 'warning'])).toEqual({
      code: 'cli_bad_value',
      message:
        '--verboseLevel takes one of trace, debug, info, warn, error, fatal, silent, got "warning". Did you mean warn?',
    })
  })
})

describe('mistyped flags: did you mean #13', () => {
  it.each([
    ['--prot', '--port'],
    ['--sepc', '--spec'],
    ['--dynmaic', '--dynamic'],
    ['--verboselevel', '--verboseLevel'],
    ['--ignore-example', '--ignoreExamples'],
    ['--json-schema-faker-fillproperty', '--json-schema-faker-fillProperties'],
    ['--no-corz', '--no-cors'],
    ['--log-fromat', '--log-format'],
    ['--multiproces', '--multiprocess'],
  ])('suggests %s → %s', (written, meant) => {
    expect(refusal([written, 'x'])).toEqual({
      code: 'cli_unknown_flag',
      message: `Unknown option ${written}. Did you mean ${meant}? Run with --help to see the options.`,
    })
  })

  it('guesses nothing for a word unlike any flag, and still points to --help', () => {
    expect(refusal(['--frobnicate'])).toEqual({
      code: 'cli_unknown_flag',
      message: 'Unknown option --frobnicate. Run with --help to see the options.',
    })
  })

  it('says a flag needs a value when it has none', () => {
    expect(refusal(['--port'])).toEqual({
      code: 'cli_missing_value',
      message: '--port needs a value. Run with --help to see the options.',
    })
  })

  it('says -h without a value is --host, as in Prism, and points to --help (#36 §11)', () => {
    expect(refusal(['-h'])).toEqual({
      code: 'cli_missing_value',
      message: '-h is --host, as in Prism, and needs a host name (-h 0.0.0.0). For the help, run with --help.',
    })
  })
})

describe('errors name what the user wrote: the flag, or the environment variable #13', () => {
  it.each([
    [['--port', 'abc'], {}, '--port takes a whole number, got "abc".'],
    [[], { PORT: 'abc' }, 'The environment variable PORT takes a whole number, got "abc".'],
    [[], { PORT: '70000' }, 'The environment variable PORT takes a port from 0 to 65535, got "70000".'],
    [['-p', '70000'], {}, '--port takes a port from 0 to 65535, got "70000".'],
    [['--log-format', 'xml'], {}, '--log-format takes "text" or "json", got "xml".'],
    [[], { MOCK_LOG_FORMAT: 'xml' }, 'The environment variable MOCK_LOG_FORMAT takes "text" or "json", got "xml".'],
    [
      ['--generation-bytes', 'lots'],
      {},
      '--generation-bytes: "lots" is not a size; use bytes or a unit, e.g. 1048576, 512kb, 1mb.',
    ],
  ] as Array<[string[], NodeJS.ProcessEnv, string]>)('%j with %j: %s', (argv, env, message) => {
    expect(refusal(argv, env)).toEqual({ code: 'cli_bad_value', message })
  })

  it('lets a flag win over its variable, so that a bad variable behind a flag is never read', () => {
    expect(optionsOf(['--port', '0'], { PORT: 'abc' }).port).toBe(0)
    expect(optionsOf(['--log-format', 'json'], { MOCK_LOG_FORMAT: 'xml' }).logFormat).toBe('json')
  })

  it('remembers which variables it used and what an error about each would quote', () => {
    const command = parseCommandLine([], {
      PORT: '4011',
      HOST: '::1',
      MOCK_SPEC: 'api.yaml',
      MOCK_FIXTURES: 'fx',
      MOCK_SCENARIO: 'slow',
      MOCK_LOG_FORMAT: 'json',
    })
    expect(command).toMatchObject({
      action: 'serve',
      environment: expect.arrayContaining([
        { variable: 'PORT', value: '4011', mentions: ['Port 4011 on', ':4011'] },
        { variable: 'HOST', value: '::1', mentions: ['::1'] },
        { variable: 'MOCK_SPEC', value: 'api.yaml', mentions: [resolve('api.yaml')] },
        { variable: 'MOCK_FIXTURES', value: 'fx', mentions: [resolve('fx')] },
        { variable: 'MOCK_SCENARIO', value: 'slow', mentions: ['"slow"'] },
      ]),
    })
  })

  it('treats an empty variable as unset', () => {
    expect(parseCommandLine([], { PORT: '', MOCK_SPEC: '' })).toMatchObject({
      options: { port: undefined, spec: undefined },
      environment: [],
    })
  })
})

describe('--help #13', () => {
  it('fits 80 columns on every line', () => {
    for (const line of CLI_HELP.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80)
  })

  it('names the versions it loads, Swagger 2.0 included, and the forms of Prism’s command line', () => {
    expect(CLI_HELP).toContain('Swagger 2.0')
    expect(CLI_HELP).toContain('OpenAPI 3.1')
    expect(CLI_HELP).toMatch(/OpenAPI\s+3\.2/)
    expect(CLI_HELP).toContain('Usage: plant-store-mock [mock] [<description>] [options]')
  })

  it('ends with the request controls, the admin API and examples: the Prism line, the 400 path, a test, Docker (#36 §11)', () => {
    for (const text of ['Prefer: code=400', '?__code=400', 'X-Mock-Scenario', 'X-Mock-Session', '/__mock/'])
      expect(CLI_HELP).toContain(text)
    const examples = CLI_HELP.slice(CLI_HELP.indexOf('Examples:'))
    for (const text of ['prism mock api.yaml', "-H 'Prefer: code=400'", 'startMockServer', 'docker run'])
      expect(examples).toContain(text)
  })

  it('lists every flag the parser takes, Prism’s among them', () => {
    for (const flag of [
      '--spec',
      '--fixtures',
      '--port',
      '--host',
      '--dynamic',
      '--seed',
      '--token',
      '--max-body',
      '--scenario',
      '--delay',
      '--journal-size',
      '--journal-bytes',
      '--generation-bytes',
      '--generation-ms',
      '--max-depth',
      '--admin-token',
      '--no-admin',
      '--cors',
      '--errors',
      '--validate',
      '--json-schema-faker-fillProperties',
      '--ignoreExamples',
      '--multiprocess',
      '--verboseLevel',
      '--debug',
      '--log-format',
      '--quiet',
      '--watch',
      '--allow-ref-outside',
      '--allowed-hosts',
      '--help',
      '--version',
    ]) {
      expect(CLI_HELP).toContain(flag)
    }
  })
})
