/**
 * The answers held right now, by a delay or a `hang` fault: counted against `MAX_HELD_ANSWERS`, and
 * woken together when the server closes. One listener on the server's long-lived closing signal wakes
 * them all: one listener per held answer put more than Node's ten on it, and Node warned of a leak
 * (`MaxListenersExceededWarning`, #34).
 */
export class HeldAnswers {
  /** Delayed or hanging answers waiting now, compared with `MAX_HELD_ANSWERS`. */
  count = 0
  readonly #waiting = new Set<() => void>()

  constructor(private readonly closing: AbortSignal) {
    closing.addEventListener('abort', () => this.#wakeAll(), { once: true })
  }

  /** Whether the server is closing: no answer is held any more. */
  get closed(): boolean {
    return this.closing.aborted
  }

  /** Calls `wake` once, when the server closes; `forget` takes it back. */
  onClose(wake: () => void): void {
    this.#waiting.add(wake)
  }

  forget(wake: () => void): void {
    this.#waiting.delete(wake)
  }

  /** Answers waiting to be woken by the server's closing (for tests: none is left once its wait ends). */
  get waiting(): number {
    return this.#waiting.size
  }

  #wakeAll(): void {
    for (const wake of this.#waiting) wake()
    this.#waiting.clear()
  }
}
