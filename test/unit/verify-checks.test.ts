/** The checks of `mock.verify()` over plain journal entries (#29 §2): counts, near misses, the flags, the message, and merging workers' inputs. */
import { describe, expect, it } from 'vitest'
import type { JournalEntry } from '../../src/journal/journal-entry.js'
import { mergeVerifyInputs } from '../../src/relay/merge-reads.js'
import type { Check, VerifyInput } from '../../src/verify/verify-check.js'
import { verifyChecks } from '../../src/verify/verify-checks.js'
import { verificationMessage } from '../../src/verify/verification-message.js'

/** A journaled POST /plants answered 200, with what the test changes. */
function entry(id: number, overrides: Partial<JournalEntry> = {}): JournalEntry {
  return {
    id,
    time: new Date(Date.UTC(2025, 0, 1, 0, 0, id)).toISOString(),
    method: 'POST',
    path: '/plants',
    query: '',
    operation: 'addPlant',
    headers: {},
    status: 200,
    scenario: 'default',
    valid: true,
    violations: [],
    durationMs: 1,
    ...overrides,
  }
}

const input = (entries: JournalEntry[], more: Partial<VerifyInput> = {}): VerifyInput => ({
  entries,
  dropped: 0,
  stubs: [],
  ...more,
})
const noParams = () => ({})
const target = { id: 'addPlant' } as Extract<Check, { kind: 'requests' }>['target']
const count = (expected: Record<string, number>, status?: number): Check => ({
  kind: 'requests',
  written: { operation: 'addPlant', ...expected },
  target,
  expected,
  ...(status === undefined ? {} : { status }),
  readsParams: false,
})

describe('verifyChecks', () => {
  it('counts exactly, at least and at most, over the requests to the operation with the status', () => {
    const entries = [entry(1), entry(2, { status: 400 }), entry(3), entry(4, { operation: 'listPlants' })]
    const outcomes = [
      count({ exactly: 2 }, 200),
      count({ atLeast: 3 }),
      count({ atMost: 0 }, 404),
      count({ atLeast: 1, atMost: 1 }, 400),
    ].map((check) => verifyChecks([check], input(entries), noParams).ok)
    expect(outcomes).toEqual([true, true, true, true])
    expect(verifyChecks([count({ exactly: 1 }, 200)], input(entries), noParams).failures).toMatchObject([
      { expected: 'exactly 1 request', found: 2, requests: [{ id: 1 }, { id: 3 }] },
    ])
  })

  it('lists near misses closest first, at most ten', () => {
    const entries = Array.from({ length: 12 }, (_, i) => entry(i + 1, { status: 500 }))
    const [failure] = verifyChecks([count({ atLeast: 1 }, 200)], input(entries), noParams).failures
    expect(failure!.nearMisses).toHaveLength(10)
    expect(failure!.nearMisses![0]).toMatchObject({ id: 1, mismatches: [{ condition: 'status 200', actual: '500' }] })
  })

  it('the flags list what breaks them, and the stubs never used', () => {
    const entries = [entry(1), entry(2, { operation: undefined, status: 404, valid: false, reason: 'No operation' })]
    const checks: Check[] = [
      { kind: 'noUnmatched', written: { noUnmatched: true } },
      { kind: 'noViolations', written: { noViolations: true } },
      { kind: 'allStubsUsed', written: { allStubsUsed: true } },
    ]
    const stubs = [
      { id: 1, operation: 'addPlant', hits: 2 },
      { id: 2, operation: 'addPlant', session: 'a', hits: 0 },
    ]
    const outcome = verifyChecks(checks, input(entries, { stubs }), noParams)
    expect(outcome.failures).toMatchObject([
      { kind: 'noUnmatched', found: 1, requests: [{ id: 2, violations: ['No operation'] }] },
      { kind: 'noViolations', found: 1 },
      { kind: 'allStubsUsed', found: 1, stubs: [{ id: 2, operation: 'addPlant', session: 'a' }] },
    ])
    expect(verificationMessage(outcome)).toMatch(/^Verification failed: 3 of 3 checks\.\n1\. Expected no request/)
  })

  it('lists ten unused stubs at most, and says how many more', () => {
    const stubs = Array.from({ length: 12 }, (_, i) => ({ id: i + 1, operation: 'addPlant', hits: 0 }))
    const outcome = verifyChecks(
      [{ kind: 'allStubsUsed', written: { allStubsUsed: true } }],
      input([], { stubs }),
      noParams,
    )
    expect(outcome.failures[0]).toMatchObject({ found: 12 })
    expect(outcome.failures[0]!.stubs).toHaveLength(10)
    expect(verificationMessage(outcome)).toMatch(/stub 10 \(addPlant\) never answered\n {2}… and 2 more$/)
  })

  it('the message says how many requests the journal had dropped, which no check could see', () => {
    const outcome = verifyChecks([count({ exactly: 1 })], input([], { dropped: 1 }), noParams)
    expect(verificationMessage(outcome)).toBe(
      'Expected exactly 1 request to addPlant; found 0.\nNo near miss: the journal holds no request.\n' +
        'Note: the journal had let go of 1 older request (it keeps the last --journal-size, 1000 by default, within --journal-bytes): the checks did not see it.',
    )
  })
})

describe('mergeVerifyInputs', () => {
  it('merges entries by time, keeping the ids each worker gave (n × 64 + slot), sums drops and each stub hits', () => {
    // Each worker's journal numbers its entries n × 64 + slot (#29): the time orders them here.
    const at = (second: number, id: number) => ({ ...entry(second), id })
    const merged = mergeVerifyInputs([
      {
        slot: 0,
        value: input([at(1, 64), at(3, 128)], { dropped: 1, stubs: [{ id: 1, operation: 'addPlant', hits: 1 }] }),
      },
      { slot: 1, value: input([at(2, 65)], { dropped: 2, stubs: [{ id: 1, operation: 'addPlant', hits: 2 }] }) },
    ])
    expect(merged.entries.map((e) => e.id)).toEqual([64, 65, 128])
    expect(merged.dropped).toBe(3)
    expect(merged.stubs).toEqual([{ id: 1, operation: 'addPlant', hits: 3 }])
  })
})
