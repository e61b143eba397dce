// Preloaded into a mock by `npm run attack` (NODE_OPTIONS=--import): the longest the process's event
// loop was held, so that each attack tells how long every other client waited at worst (#34: no
// request blocks the loop for more than 50 ms). On SIGUSR2 it writes the longest delay since the
// last signal, in ms, to $LOOP_DELAY_FILE, and starts again.
import { writeFileSync } from 'node:fs'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { isMainThread } from 'node:worker_threads'

if (isMainThread && process.env.LOOP_DELAY_FILE) {
  const delays = monitorEventLoopDelay({ resolution: 5 })
  delays.enable()
  process.on('SIGUSR2', () => {
    writeFileSync(process.env.LOOP_DELAY_FILE, String(delays.max / 1e6))
    delays.reset()
  })
}
