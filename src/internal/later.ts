/**
 * Work put off until the current turn's answers are on their way: Node's `setImmediate` where there is
 * one (it runs after the I/O of this turn), else a zero-delay timer, as in a browser or a worker (#28).
 * The one place the core names the host's scheduler.
 */
/* eslint-disable no-restricted-globals -- this file is where the core reaches the host's scheduler */
const schedule: (run: () => void) => { unref?: () => unknown } =
  typeof setImmediate === 'function' ? setImmediate : (run) => setTimeout(run, 0)

/** Runs `run` after this turn. */
export function afterThisTurn(run: () => void): void {
  schedule(run)
}

/** Runs `run` after this turn, without keeping a Node process alive for it. */
export function afterThisTurnInBackground(run: () => void): void {
  schedule(run).unref?.()
}
