/**
 * A scenario rule written wrong stops `createApp` (#16): the StartupError carries the rule's problem
 * code, and its message names the scenarios file, the scenario and the rule (`rule "addItem" #2`
 * in a list, `rule "addItem"` alone), then what is wrong.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { StartupErrorCode } from '../../src/errors/index.js'
import { createApp } from '../../src/index.js'
import { fixturesWith, rulesApp, rulesSpec } from '../support/rule-app.js'
import { expectStartupError } from '../support/startup-error.js'
import { removeTempDirs } from '../support/temp-dirs.js'

afterEach(removeTempDirs)

/** A scenario `broken` whose second rule for `operation` is `rule` (YAML lines under `- `). */
const secondRule = (operation: string, rule: string) =>
  `broken:\n  rules:\n    ${operation}:\n      - status: 503\n      - ${rule.split('\n').join('\n        ')}\n`

interface StartupCase {
  name: string
  scenarios: string
  code: StartupErrorCode
  /** What the message says after the rule it names. */
  message: RegExp
  /** How the message names the rule: `rule "addItem" #2` for the second of a list. */
  rule?: string
}

const cases: StartupCase[] = [
  {
    name: 'a regular expression that does not compile',
    scenarios: secondRule('addItem', "when: { body: { $.name: { matches: '(' } } }\nstatus: 503"),
    code: 'scenario_bad_condition',
    message: /when\.body\["\$\.name"\]\.matches: \/\(\/ is no regular expression/,
  },
  {
    name: 'a JSON path no valid body has',
    scenarios: secondRule('addItem', 'when: { body: { $.owner.colour: red } }\nstatus: 503'),
    code: 'scenario_bad_condition',
    message: /the request body schema has no "colour" at \$\.owner/,
  },
  {
    name: 'a JSON path with a wildcard',
    scenarios: secondRule('addItem', "when: { body: { '$.tags[*]': red } }\nstatus: 503"),
    code: 'scenario_bad_condition',
    message: /wildcards/,
  },
  {
    name: 'a path parameter the operation does not declare',
    scenarios: secondRule('getItem', 'when: { params: { id: x } }\nstatus: 503'),
    code: 'scenario_bad_condition',
    message: /no path parameter "id"; it declares itemId/,
    rule: 'rule "getItem" #2',
  },
  {
    name: 'a status the operation does not declare',
    scenarios: secondRule('getItem', 'when: { params: { itemId: x } }\nstatus: 401'),
    code: 'scenario_undeclared_status',
    message: /getItem does not declare status 401 \(declared: 200, 400, 404, 503\)/,
    rule: 'rule "getItem" #2',
  },
  {
    name: 'a body that breaks its response schema',
    scenarios: secondRule('addItem', 'when: { body: { $.name: x } }\nbody: { name: 5 }'),
    code: 'scenario_bad_body',
    message: /"body" breaks the schema of addItem's 200 response: body\.name must be a string/,
  },
  {
    name: 'a body beside an example',
    scenarios: secondRule('addItem', 'status: 400\nexample: duplicate\nbody: { error: 1, message: m }'),
    code: 'scenario_bad_body',
    message: /either a named "example".*or an inline "body"/,
  },
  {
    name: 'headers that break the declared header schema',
    scenarios: secondRule('addItem', 'headers: { X-Stock: -1 }'),
    code: 'scenario_bad_headers',
    message: /"headers" break what addItem declares for 200: .*x-stock.*>= 0/,
  },
  {
    name: 'from: state without stateful',
    scenarios: secondRule('addItem', 'when: { body: { $.name: x } }\nfrom: state'),
    code: 'scenario_bad_from',
    message: /addItem keeps no records: "from: state" needs --stateful/,
  },
  {
    name: 'times: 0',
    scenarios: secondRule('addItem', 'when: { body: { $.name: x } }\ntimes: 0\nstatus: 503'),
    code: 'scenario_bad_times',
    message: /"times" is a whole number from 1 up, got 0/,
  },
  {
    name: 'validate that is not a boolean',
    scenarios: secondRule('addItem', 'validate: no\nstatus: 503'),
    code: 'scenario_bad_validate',
    message: /"validate" is true or false/,
  },
  {
    name: 'a sequence beside a status',
    scenarios: secondRule('addItem', 'status: 503\nsequence: [ { status: 404 } ]'),
    code: 'scenario_bad_sequence',
    message: /gives its answers there, not in status/,
  },
  {
    name: 'a sequence step with an undeclared status, named by its index',
    scenarios: secondRule('addItem', 'sequence: [ { status: 503 }, { status: 401 } ]'),
    code: 'scenario_undeclared_status',
    message: /sequence\[1\]: addItem does not declare status 401/,
  },
  {
    name: 'an unknown location',
    scenarios: secondRule('addItem', 'when: { form: { name: x } }\nstatus: 503'),
    code: 'scenario_bad_condition',
    message: /"form" is no location; use body, query, headers, params, cookies, session/,
  },
  {
    name: 'an unknown operator',
    scenarios: secondRule('addItem', 'when: { query: { view: { like: x } } }\nstatus: 503'),
    code: 'scenario_bad_condition',
    message: /"like" is no operator; use equals, matches, exists, in, gt, lt, gte, lte/,
  },
]

describe('rules written wrong stop start-up (#16)', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_, c) => {
    const error = await expectStartupError(rulesApp(c.scenarios), c.code)
    expect(error.message).toMatch(/^In \/.*\/scenarios\.yaml, /)
    expect(error.message).toContain(`scenario "broken", ${c.rule ?? 'rule "addItem" #2'}: `)
    expect(error.message).toMatch(c.message)
  })

  it('names a rule that is not in a list without a number', async () => {
    const scenarios = 'broken:\n  rules:\n    addItem: { when: { body: { $.colour: red } }, status: 503 }\n'
    const error = await expectStartupError(rulesApp(scenarios), 'scenario_bad_condition')
    expect(error.message).toMatch(/scenario "broken", rule "addItem": when\.body\["\$\.colour"\]/)
  })

  it('names the "*" rule and the operation it cannot apply to', async () => {
    const scenarios = "broken:\n  rules:\n    '*':\n      - when: { params: { itemId: x } }\n        status: 503\n"
    const error = await expectStartupError(rulesApp(scenarios), 'scenario_bad_condition')
    expect(error.message).toContain('scenario "broken", rule "*" #1: when.params["itemId"]')
    expect(error.message).toMatch(/declares none/)
  })

  it('stops on a mistake in the default scenario rules too', async () => {
    const scenarios = secondRule('addItem', 'times: -1\nstatus: 503').replace('broken:', 'default:')
    const error = await expectStartupError(rulesApp(scenarios), 'scenario_bad_times')
    expect(error.message).toContain('scenario "default", rule "addItem" #2')
  })

  it('starts when the same fields are written right', async () => {
    const fixtures = await fixturesWith(
      secondRule(
        'addItem',
        "when: { body: { $.name: { matches: '^(a|b)$' }, $.owner.name: x } }\ntimes: 1\nvalidate: false\nsequence: [ { status: 503 }, { status: 404, headers: { X-Stock: 1 } } ]",
      ),
    )
    const app = await createApp({ spec: rulesSpec, fixtures })
    expect(app.mock.activeScenario()).toBe('default')
  })
})
