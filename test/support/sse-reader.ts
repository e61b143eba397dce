/**
 * A Server-Sent Events reader over fetch, as the dashboard reads the journal stream (fetch can send
 * the admin token, EventSource cannot): it collects the events and waits, bounded in time, for enough.
 */
export interface SseEvent {
  type: string
  id?: string
  data: string
}

export interface SseReader {
  response: Response
  events: SseEvent[]
  /** The `request` events' entries, parsed. */
  entries(): Array<{ id: number; operation?: string; status: number; path: string }>
  /** Resolves once `done(events)` holds; rejects after `timeoutMs`. */
  waitFor(done: (events: SseEvent[]) => boolean, timeoutMs?: number): Promise<void>
  /** Resolves when the server ends the stream. */
  ended: Promise<void>
  close(): void
}

export async function openSseReader(url: string, headers: Record<string, string> = {}): Promise<SseReader> {
  const abort = new AbortController()
  const response = await fetch(url, { headers, signal: abort.signal })
  const events: SseEvent[] = []
  let notify = () => {}
  const ended = response.ok ? readAll(response.body!, events, () => notify()) : response.arrayBuffer().then(() => {})
  return {
    response,
    events,
    entries: () => events.filter((e) => e.type === 'request').map((e) => JSON.parse(e.data)),
    waitFor(done, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`stream: still waiting after ${timeoutMs} ms, ${events.length} events`)),
          timeoutMs,
        )
        notify = () => {
          if (!done(events)) return
          clearTimeout(timer)
          resolve()
        }
        notify()
      })
    },
    ended: ended.catch(() => undefined),
    close: () => abort.abort(),
  }
}

async function readAll(body: ReadableStream<Uint8Array>, events: SseEvent[], notify: () => void): Promise<void> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ''
  for (;;) {
    const { value, done } = await reader.read()
    if (done) return
    buffer += value
    let end: number
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const event = parseEvent(buffer.slice(0, end))
      buffer = buffer.slice(end + 2)
      if (event) events.push(event)
    }
    notify()
  }
}

/** One event block; undefined for a block of comments only (`retry:` and heartbeats). */
export function parseEvent(block: string): SseEvent | undefined {
  const event: SseEvent = { type: 'message', data: '' }
  let fields = 0
  for (const line of block.split('\n')) {
    const colon = line.indexOf(':')
    if (line === '' || colon === 0) continue
    const field = colon === -1 ? line : line.slice(0, colon)
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '')
    if (field === 'data') event.data = fields++ && event.data ? `${event.data}\n${value}` : value
    else if (field === 'event') event.type = value
    else if (field === 'id') event.id = value
    else continue
    fields++
  }
  return fields === 0 || (event.type === 'message' && event.data === '') ? undefined : event
}
