// The generation bomb of #34: one body of 300,000 items (seconds of CPU to make) asked for while
// another client asks a cheap operation every 10 ms. The other client's p99 is what #34 bounds
// (under 50 ms): the mock makes such a body off its event loop. Used by `npm run attack` and by
// `npm run bench` (its last table).

/** The description's paths: `/bomb`, the costly body, and `/ping`, the cheap one. */
export const BOMB_PATHS = {
  '/bomb': {
    get: {
      responses: {
        200: {
          description: 'big',
          content: {
            'application/json': {
              schema: { type: 'array', minItems: 300_000, items: { type: 'integer', minimum: 0, maximum: 9 } },
            },
          },
        },
      },
    },
  },
  '/ping': {
    get: {
      responses: {
        200: {
          description: 'small',
          content: {
            'application/json': { schema: { type: 'object', properties: { ok: { type: 'boolean' } } } },
          },
        },
      },
    },
  },
}

/**
 * Asks `url` for the bomb, and `/ping` every 10 ms until it is answered (60 s at most). Resolves the
 * statuses (the pings' then the bomb's), the number of pings, their p99 in ms, and how long the bomb took.
 */
export async function otherClientDuringBomb(url) {
  const started = performance.now()
  let done = false
  const bomb = fetch(`${url}/bomb`, { signal: AbortSignal.timeout(60_000) }).then(
    async (answer) => (await answer.arrayBuffer(), answer.status),
    () => 0,
  )
  bomb.finally(() => (done = true))
  const latencies = []
  const statuses = []
  while (!done && performance.now() - started < 60_000) {
    const sent = performance.now()
    const answer = await fetch(`${url}/ping`, { signal: AbortSignal.timeout(10_000) }).catch(() => undefined)
    await answer?.arrayBuffer()
    latencies.push(performance.now() - sent)
    statuses.push(answer?.status ?? 0)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  statuses.push(await bomb)
  latencies.sort((a, b) => a - b)
  return {
    statuses,
    pings: latencies.length,
    p99: latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? Infinity,
    ms: performance.now() - started,
  }
}
