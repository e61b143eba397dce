import { describe, expect, it } from 'vitest'
import { StartupError, startupErrorCodes, startupErrors } from '../../src/errors/index.js'
import { createApp } from '../../src/index.js'
import { CommandLineError } from '../../src/command-line/command-line-error.js'
import { parseCommandLine } from '../../src/command-line/parse-command-line.js'
import { startupErrorOf } from '../support/startup-error.js'
import { type RuleProblem, ruleProblems } from '../../src/errors/rule.js'

type Template = (...args: unknown[]) => StartupError

/** Each template called with values that read as text and as lists; `inDescription` wraps an error. */
function sample(name: string, template: Template): StartupError {
  if (name === 'inDescription') return template('openapi.yaml', 'GET /x', startupErrors.pathWithoutSlash('x'))
  return template(...Array.from({ length: template.length }, () => ['x']))
}

const templates = Object.entries(startupErrors) as Array<[string, Template]>

describe('the start-up error catalogue (#14)', () => {
  it('gives every template a code from startupErrorCodes and a message', () => {
    for (const [name, template] of templates) {
      const error = sample(name, template)
      expect(error, name).toBeInstanceOf(StartupError)
      expect(startupErrorCodes, name).toContain(error.code)
      expect(error.message, name).not.toBe('')
    }
  })

  it('lists each code once, in snake_case, and every code but the CLI own is made by a template', () => {
    expect(new Set(startupErrorCodes).size).toBe(startupErrorCodes.length)
    for (const code of startupErrorCodes) expect(code).toMatch(/^[a-z]+(_[a-z0-9]+)+$/)
    // A scenario rule's problems are made by their own templates (`ruleProblems`), then told where they are.
    const ruleCodes = Object.values(ruleProblems).map(
      (template) =>
        (template as (...args: unknown[]) => RuleProblem)(...Array.from({ length: template.length }, () => ['x'])).code,
    )
    const made = new Set([...templates.map(([name, template]) => sample(name, template).code), ...ruleCodes])
    expect(startupErrorCodes.filter((code) => !code.startsWith('cli_') && !made.has(code))).toEqual([])
  })

  it('keeps the code of an error told which file it is in', () => {
    const error = startupErrors.inDescription('openapi.yaml', '', startupErrors.responseCode('600', '#/x'))
    expect(error.code).toBe('description_bad_response_code')
    expect(error.message).toBe(
      'In openapi.yaml: The response code "600" at #/x is not a status, a range such as 2XX, or "default".',
    )
  })

  it('gives command-line errors their cli_ code, from the same list', () => {
    let thrown: unknown
    try {
      parseCommandLine(['--no-such-flag'], {})
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(CommandLineError)
    expect(thrown).toBeInstanceOf(StartupError)
    expect((thrown as CommandLineError).code).toBe('cli_unknown_flag')
    expect(startupErrorCodes).toContain((thrown as CommandLineError).code)
  })

  it('names the failure by code through createApp: description, scenario and options', async () => {
    const cases: Array<[Parameters<typeof createApp>[0], string, string]> = [
      [
        { spec: '/no/such/openapi.yaml' },
        'description_unreadable',
        'Cannot read the description /no/such/openapi.yaml',
      ],
      [{ scenario: 'no-such-scenario' }, 'scenario_unknown', 'There is no scenario "no-such-scenario" to start with'],
      [{ seed: 1.5 }, 'option_bad_seed', 'seed must be a whole number, got 1.5.'],
      [{ validate: 'loose' as never }, 'option_bad_validate', 'validate must be "strict", "report" or "off"'],
      [{ delay: 'soon' }, 'option_bad_delay', 'delay must be milliseconds or a range MIN-MAX'],
      [{ adminToken: '' }, 'option_bad_admin_token', 'the admin token must be non-empty'],
    ]
    for (const [options, code, message] of cases) {
      const error = await startupErrorOf(createApp(options))
      expect(error.code, code).toBe(code)
      expect(error.message).toContain(message)
    }
  })
})
