/** Hit counts per session (`times`, `sequence`, `hits`): bounded, and the session counted last is forgotten last. */
import { describe, expect, it } from 'vitest'
import { RuleCounters } from '../../src/rules/rule-counters.js'
import type { AnswerRule } from '../../src/rules/rule.js'
import { bodyViolations } from '../../src/validation/check-response-body.js'
import { createAjv } from '../../src/validation/create-ajv.js'

const rule: AnswerRule = { label: 'scenario s, addPlant rule 1', answer: {} }

describe('RuleCounters', () => {
  it('counts per session, requests without one together, and resets all or one session', () => {
    const counters = new RuleCounters()
    counters.hit(rule, 'a')
    counters.hit(rule, 'a')
    counters.hit(rule, undefined)
    expect([counters.count(rule, 'a'), counters.count(rule, undefined), counters.count(rule, 'b')]).toEqual([2, 1, 0])
    expect(counters.total(rule)).toBe(3)
    counters.reset('a')
    expect([counters.count(rule, 'a'), counters.count(rule, undefined)]).toEqual([0, 1])
    counters.reset()
    expect(counters.total(rule)).toBe(0)
  })

  it('forgets the least recently counted session beyond 10,000, not the first counted', () => {
    const counters = new RuleCounters()
    counters.hit(rule, 'busy')
    for (let i = 0; i < 9_999; i++) counters.hit(rule, `s${i}`)
    counters.hit(rule, 'busy')
    counters.hit(rule, 'one more')
    expect(counters.count(rule, 'busy')).toBe(2)
    expect(counters.count(rule, 's0')).toBe(0)
    expect(counters.count(rule, 's1')).toBe(1)
  })

  it('forgets a removed stub in every session', () => {
    const counters = new RuleCounters()
    counters.hit(rule, 'a')
    counters.hit(rule, 'b')
    counters.forget(rule)
    expect(counters.total(rule)).toBe(0)
  })
})

describe('bodyViolations', () => {
  it('names a field a closed schema does not declare once, though Ajv and the undeclared-field walk both find it', () => {
    const document = {
      components: {
        schemas: { Plant: { type: 'object', properties: { name: { type: 'string' } }, additionalProperties: false } },
      },
    }
    const ajv = createAjv()
    const validate = ajv.compile({ ...document.components.schemas.Plant })
    const violations = bodyViolations(
      { document },
      { validate, schemaPointer: '/components/schemas/Plant' },
      { name: 'Fern', colour: 'red' },
    )
    expect(violations).toEqual([{ path: 'body.colour', message: 'is not declared by the schema' }])
  })
})
