import { nodePlatform } from '../../src/node/node-platform.js'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  GENERATION_BUDGET,
  compileBudgetWarnings,
  exceedsBudget,
  withinBudget,
} from '../../src/generation/generation-budget.js'
import { isDeadlinePassed, startDeadline } from '../../src/generation/generation-deadline.js'

/** The generation budget (#12): what a schema may ask of generation, in bytes, and the deadline, in milliseconds. */
const budget = (bytes: number) => ({ bytes, ms: 1000 })

describe('exceedsBudget', () => {
  it('names a string longer than the byte budget, and not one as long', () => {
    expect(exceedsBudget({ type: 'string', minLength: 1025 }, budget(1024))).toBe('minLength 1025')
    expect(exceedsBudget({ type: 'string', minLength: 1024 }, budget(1024))).toBeUndefined()
  })

  it('names a list whose smallest serialisation is larger than the byte budget: two bytes an item', () => {
    expect(exceedsBudget({ type: 'array', minItems: 513 }, budget(1024))).toBe('minItems 513')
    expect(exceedsBudget({ type: 'array', minItems: 512 }, budget(1024))).toBeUndefined()
  })

  it('names an object whose smallest serialisation is larger than the byte budget: five bytes a property', () => {
    expect(exceedsBudget({ type: 'object', minProperties: 205 }, budget(1024))).toBe('minProperties 205')
    expect(exceedsBudget({ type: 'object', minProperties: 204 }, budget(1024))).toBeUndefined()
  })

  it('names a pattern that repeats something more times than the budget has bytes', () => {
    expect(exceedsBudget({ type: 'string', pattern: '^x{2000}$' }, budget(1024))).toBe('pattern ^x{2000}$')
    expect(exceedsBudget({ type: 'string', pattern: '^x{10,2000}$' }, budget(1024))).toBe('pattern ^x{10,2000}$')
    expect(exceedsBudget({ type: 'string', pattern: '^x{1000}$' }, budget(1024))).toBeUndefined()
  })

  it('measures against 1 MiB by default: the issue’s five million characters are beyond it, 300,000 items are not', () => {
    expect(GENERATION_BUDGET).toEqual({ bytes: 1024 * 1024, ms: 5000 })
    expect(exceedsBudget({ minLength: 5_000_000 })).toBe('minLength 5000000')
    expect(exceedsBudget({ pattern: '^x{600000000}$' })).toBe('pattern ^x{600000000}$')
    expect(exceedsBudget({ minItems: 300_000 })).toBeUndefined()
  })
})

describe('withinBudget', () => {
  it('leaves out what the byte budget cannot hold, so that json-schema-faker makes a short value at once', () => {
    expect(withinBudget({ type: 'string', minLength: 5000, maxLength: 6000 }, budget(1024))).toEqual({ type: 'string' })
    expect(withinBudget({ type: 'array', minItems: 600, maxItems: 700 }, budget(1024))).toEqual({
      type: 'array',
      maxItems: 700,
    })
    expect(withinBudget({ type: 'string', minLength: 2000, pattern: '^x{5000}$' }, budget(1024))).toEqual({
      type: 'string',
    })
  })

  it('keeps what the budget holds', () => {
    expect(withinBudget({ type: 'string', minLength: 500, maxLength: 800 }, budget(1024))).toEqual({
      type: 'string',
      minLength: 500,
      maxLength: 800,
    })
    expect(withinBudget({ type: 'array', minItems: 300_000 })).toEqual({ type: 'array', minItems: 300_000 })
  })

  it('makes strings 100,000 characters long at most, as before the byte budget, unless their minLength asks for more', () => {
    expect(withinBudget({ type: 'string', maxLength: 10_000_000 })).toEqual({ type: 'string', maxLength: 100_000 })
    expect(withinBudget({ type: 'string', minLength: 200_000, maxLength: 10_000_000 })).toEqual({
      type: 'string',
      minLength: 200_000,
      maxLength: 200_000,
    })
    expect(withinBudget({ type: 'string', maxLength: 5000 }, budget(1024))).toEqual({ type: 'string', maxLength: 1024 })
  })
})

describe('compileBudgetWarnings', () => {
  const document = {
    openapi: '3.0.3',
    components: {
      schemas: {
        Blob: { type: 'string', minLength: 5000 },
        Copy: { type: 'string', minLength: 5000 },
        Many: { type: 'array', minItems: 1000, items: { type: 'integer' } },
        Small: { type: 'string', minLength: 10 },
      },
    },
  }

  it('warns once per excess, naming the schemas by pointer, the budget and the flag that raises it', () => {
    const warnings = compileBudgetWarnings(document, budget(1024))
    expect(warnings).toHaveLength(2)
    expect(warnings[0]).toContain(
      'a schema asks for minLength 5000 (at #/components/schemas/Blob, #/components/schemas/Copy)',
    )
    expect(warnings[1]).toContain('a schema asks for minItems 1000 (at #/components/schemas/Many)')
    for (const warning of warnings) expect(warning).toContain('(1024 bytes; --generation-bytes raises it)')
  })

  it('warns of nothing the budget holds', () => {
    expect(compileBudgetWarnings(document, budget(8192))).toEqual([])
  })
})

describe('startDeadline', () => {
  afterEach(() => {
    vi.restoreAllMocks()
  })

  /** The process's CPU clock, standing still until the test moves it (in ms). */
  function stoppedClock() {
    let now = 1000
    const read = vi.spyOn(process, 'cpuUsage').mockImplementation(() => ({ user: now * 1000, system: 0 }))
    return { read, advance: (ms: number) => (now += ms) }
  }

  it('passes checks until its time is up, then throws an error only it is known by', () => {
    const clock = stoppedClock()
    const deadline = startDeadline(50, nodePlatform.cpuTime)
    clock.advance(50)
    expect(() => deadline.check()).not.toThrow()
    clock.advance(1)
    let thrown: unknown
    try {
      deadline.check()
    } catch (error) {
      thrown = error
    }
    expect(isDeadlinePassed(thrown)).toBe(true)
    expect(isDeadlinePassed(new Error('generation ran past its 50 ms'))).toBe(false)
  })

  it('does not count the time of work it is told is not generation (a validator compiled on first use)', () => {
    const clock = stoppedClock()
    const deadline = startDeadline(50, nodePlatform.cpuTime)
    expect(deadline.excluding(() => (clock.advance(400), 'compiled'))).toBe('compiled')
    clock.advance(50)
    expect(() => deadline.check()).not.toThrow()
    clock.advance(1)
    expect(() => deadline.check()).toThrow()
  })

  it('reads the clock once in 128 ticks', () => {
    const clock = stoppedClock()
    const deadline = startDeadline(50, nodePlatform.cpuTime)
    const before = clock.read.mock.calls.length
    for (let tick = 0; tick < 1280; tick++) deadline.tick()
    expect(clock.read.mock.calls.length - before).toBe(10)
  })

  it('throws on every tick once its time is up, so that retries inside json-schema-faker end at once', () => {
    const clock = stoppedClock()
    const deadline = startDeadline(50, nodePlatform.cpuTime)
    clock.advance(51)
    let throws = 0
    for (let tick = 0; tick < 200; tick++) {
      try {
        deadline.tick()
      } catch (error) {
        if (isDeadlinePassed(error)) throws++
      }
    }
    // The first throw waits for the next clock read; every tick after it throws.
    expect(throws).toBe(200 - 127)
  })
})
