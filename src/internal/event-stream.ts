/**
 * The fields of one Server-Sent Event as an EventSource reads them (WHATWG HTML, 9.2.6): its `data`
 * lines joined with LF, its `event` name and `id`; comments (`:`), `retry:` and unknown fields are
 * passed over. Read by the proxy (an upstream's events) and by stream fixtures (`200.stream.sse`).
 */
export interface EventFields {
  /** `undefined` when the event has no `data` field. */
  data?: string
  event?: string
  id?: string
}

/** The fields of one event's text (its lines, in any line-end style). */
export function eventFieldsOf(event: string): EventFields {
  return fieldsOf(event.split(/\r\n|\r|\n/))
}

/**
 * The events of an event-stream text, each with the number of its first line (from 1): blocks ended by
 * a blank line, a last block without one counted too (a file may end without it). Blocks of comments
 * only are left out.
 */
export function eventsOf(text: string): Array<EventFields & { line: number }> {
  const events: Array<EventFields & { line: number }> = []
  let block: string[] = []
  let first = 0
  const close = () => {
    if (block.some((line) => !line.startsWith(':'))) events.push({ ...fieldsOf(block), line: first })
    block = []
  }
  text.split(/\r\n|\r|\n/).forEach((line, index) => {
    if (line === '') return close()
    if (block.length === 0) first = index + 1
    block.push(line)
  })
  close()
  return events
}

function fieldsOf(lines: readonly string[]): EventFields {
  const fields: EventFields = {}
  for (const line of lines) {
    if (line === '' || line.startsWith(':')) continue
    const colon = line.indexOf(':')
    const name = colon === -1 ? line : line.slice(0, colon)
    const value = colon === -1 ? '' : line.slice(colon + (line[colon + 1] === ' ' ? 2 : 1))
    if (name === 'data') fields.data = fields.data === undefined ? value : `${fields.data}\n${value}`
    else if (name === 'event') fields.event = value
    else if (name === 'id') fields.id = value
  }
  return fields
}
