/** Stateful mode's lists as streams (#31 §2): a resource's records, an item each, in the negotiated framing. */
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { createApp } from '../../src/index.js'
import { silentLogger } from '../../src/common/log.js'

const spec = fileURLToPath(new URL('../descriptions/stateful-streams.yaml', import.meta.url))

async function appWithPlants() {
  const app = await createApp({ spec, stateful: true, logger: silentLogger })
  for (const plant of [
    { name: 'Monstera', kind: 'aroid' },
    { name: 'Fern', kind: 'fern' },
    { name: 'Philodendron', kind: 'aroid' },
  ]) {
    const made = await app.request('/plants', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(plant),
    })
    expect(made.status).toBe(201)
  }
  return app
}

describe('a stateful list, streamed (#31 §2)', () => {
  it('streams the records as JSON Lines, the page’s filters and limit applied', async () => {
    const app = await appWithPlants()
    const lines = async (query: string) => {
      const response = await app.request(`/plants${query}`, {
        headers: { accept: 'application/x-ndjson', prefer: 'stream-interval=0' },
      })
      expect(response.headers.get('content-type')).toBe('application/x-ndjson')
      return (await response.text())
        .trimEnd()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { name: string })
    }
    expect((await lines('')).map((p) => p.name)).toEqual(['Monstera', 'Fern', 'Philodendron'])
    expect((await lines('?kind=aroid')).map((p) => p.name)).toEqual(['Monstera', 'Philodendron'])
    expect((await lines('?limit=1')).map((p) => p.name)).toEqual(['Monstera'])
    // JSON is still the default answer.
    expect(((await (await app.request('/plants')).json()) as unknown[]).length).toBe(3)
  })

  it('streams them as Server-Sent Events, one record an event; an empty list is an empty stream', async () => {
    const app = await appWithPlants()
    const text = await (
      await app.request('/plants', { headers: { accept: 'text/event-stream', prefer: 'stream-interval=0' } })
    ).text()
    const events = text.split('\n\n').filter(Boolean)
    expect(events).toHaveLength(3)
    expect(JSON.parse(events[1]!.split('\n')[1]!.slice('data: '.length))).toMatchObject({ name: 'Fern', id: 2 })
    const empty = await createApp({ spec, stateful: true, logger: silentLogger })
    const none = await empty.request('/plants', { headers: { accept: 'application/x-ndjson' } })
    expect(none.status).toBe(200)
    expect(await none.text()).toBe('')
    expect(empty.mock.requests({ operation: 'listPlants' })[0]!.response!.stream).toMatchObject({
      items: 0,
      ended: 'complete',
    })
  })

  it('takes a collection whose GET only streams (itemSchema) for a resource of its own', async () => {
    const app = await createApp({ spec, stateful: true, logger: silentLogger })
    for (const message of ['started', 'watered'])
      await app.request('/logs', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message }),
      })
    const text = await (await app.request('/logs', { headers: { prefer: 'stream-interval=0' } })).text()
    expect(
      text
        .trimEnd()
        .split('\n')
        .map((line) => (JSON.parse(line) as { message: string }).message),
    ).toEqual(['started', 'watered'])
  })
})
