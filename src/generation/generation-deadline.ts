/**
 * The time one body's generation may still take (`generationMs`, #12). json-schema-faker runs
 * synchronously, so the server answers no one while it runs: a deadline that only measured it
 * afterwards would bound nothing. Generation calls `tick()` as it goes (on each value
 * json-schema-faker makes) and `check()` between mending rounds; once the deadline has passed,
 * either throws, and keeps throwing, so that json-schema-faker's own retries (each `oneOf` branch
 * in turn) end at once too. The error is caught where the body is generated (`isDeadlinePassed`).
 */
export interface Deadline {
  /** The budget it was started with, for the answer. */
  readonly ms: number
  /** Cheap, for every generated value: reads the clock every `TICKS_PER_CLOCK_READ` ticks. */
  tick(): void
  /** Reads the clock: throws once the deadline has passed. */
  check(): void
  /** Runs work that is not generation (compiling a validator on first use): its time moves the deadline on. */
  excluding<T>(work: () => T): T
}

/**
 * The clock is the process's CPU time, not the wall clock: on a busy machine (a CI runner with other
 * jobs, a test suite's parallel workers) Stripe's largest bodies took over 5 s of wall time to
 * generate and were answered 500, while the work done was the same. A read costs about 0.8 µs and
 * a generated value a microsecond or more: one read in 128 values is lost in the noise, and still
 * stops within a fraction of a millisecond of the deadline.
 */
const TICKS_PER_CLOCK_READ = 128

/**
 * `clock`: milliseconds of the process's CPU time (the platform's `cpuTime`); where a platform has
 * no such clock (a browser), the wall clock.
 */
export function startDeadline(ms: number, clock: () => number = () => performance.now()): Deadline {
  const cpuNow = clock
  let at = cpuNow() + ms
  let countdown = TICKS_PER_CLOCK_READ
  const check = () => {
    if (cpuNow() <= at) return
    // Every tick from now on reads the clock, and so throws.
    countdown = 0
    throw new DeadlinePassed(ms)
  }
  return {
    ms,
    check,
    tick() {
      if (--countdown > 0) return
      countdown = TICKS_PER_CLOCK_READ
      check()
    },
    excluding(work) {
      const started = cpuNow()
      try {
        return work()
      } finally {
        at += cpuNow() - started
      }
    },
  }
}

/** Private to generation: it never leaves `renderResponse`, which answers it as `generation_budget`. */
class DeadlinePassed extends Error {
  constructor(ms: number) {
    super(`generation ran past its ${ms} ms`)
    this.name = 'DeadlinePassed'
  }
}

export function isDeadlinePassed(error: unknown): boolean {
  return error instanceof DeadlinePassed
}
