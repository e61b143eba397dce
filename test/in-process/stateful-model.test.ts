/**
 * Stateful mode against a reference model (#15): random sequences of create / read / replace / merge /
 * remove / list requests on the Garden's `plants`, sent to the mock and applied to a tiny model of a
 * store (a Map of id → record, kept in creation order), must give the same observable answers: the
 * status, the body of a 2xx, the Error shape of the rest, and at the end the records themselves as
 * `GET /__mock/state` shows them. Sessions run the same way, interleaved, each against its own model.
 * Then the Plant Store as the seed has it (`POST /plants` only): 200 for a new id, 400 for a taken one.
 */
import fc from 'fast-check'
import { parse as parseLossless } from 'lossless-json'
import { beforeAll, describe, expect, it } from 'vitest'
import type { MockApp } from '../../src/index.js'
import { createApp } from '../support/store-under-test.js'

const GARDEN = 'test/descriptions/stateful/garden.yaml'
const AUTH = { authorization: 'Bearer t' }
const JSON_TYPE = 'application/json'
const MERGE_TYPE = 'application/merge-patch+json'

/** Beyond 2^53: an id the mock must keep exact, and the ids it assigns after it. */
const BIG = 2n ** 53n + 1n

// --- The reference model -------------------------------------------------------------------------

/** A plant as the model keeps it: `note` is a field the description does not declare, stored but never answered. */
interface ModelPlant {
  id: bigint
  name: string
  tag?: string
  note?: string
}

/** What the mock should answer: the status, and the JSON body of a 2xx (`undefined`: no body), or an Error (its message where the model knows it). */
type Expected = { status: number; body?: unknown } | { status: number; error: true; message?: string }

/** An id as the request path writes it: `3`, or as another JSON spelling of the same integer (`3.0`, `3e0`). */
interface PathId {
  value: bigint
  spelling: 'plain' | 'point' | 'exponent'
}

type Command =
  | { kind: 'create'; id?: bigint; pointed?: boolean; name?: string; tag?: string; note?: string }
  | { kind: 'read'; id: PathId }
  | { kind: 'replace'; id: PathId; bodyId?: bigint; name?: string; tag?: string; note?: string }
  | { kind: 'merge'; id: PathId; patch: Patch; contentType: string }
  | { kind: 'remove'; id: PathId }
  | { kind: 'list'; limit?: number; offset?: number; tag?: string }

/** A merge patch: `null` removes a field (RFC 7386); `id` is not declared by PlantPatch and never changes the key. */
interface Patch {
  name?: string | null
  tag?: string | null
  note?: string | null
  id?: number | null
}

class Model {
  /** Insertion order is creation order: a replace keeps its place, a delete and create again goes last. */
  readonly plants = new Map<bigint, ModelPlant>()

  apply(command: Command): Expected {
    switch (command.kind) {
      case 'create': {
        if (command.name === undefined) return { status: 400, error: true }
        const id = command.id ?? this.nextId()
        if (this.plants.has(id)) return { status: 400, error: true, message: `A plant with id ${id} already exists.` }
        const plant = plantOf(id, command)
        this.plants.set(id, plant)
        return { status: 201, body: answerOf(plant) }
      }
      case 'read': {
        const plant = this.plants.get(command.id.value)
        return plant ? { status: 200, body: answerOf(plant) } : { status: 404, error: true }
      }
      case 'replace': {
        if (command.name === undefined) return { status: 400, error: true }
        const id = command.id.value
        const existed = this.plants.has(id)
        // The path names the record; an id in the body is not the key.
        const plant = plantOf(id, command)
        this.plants.set(id, plant)
        return { status: existed ? 200 : 201, body: answerOf(plant) }
      }
      case 'merge': {
        const { patch } = command
        // PlantPatch: at least one field; name and tag are strings (not nullable), so `null` breaks it.
        if (Object.keys(patch).length === 0 || patch.name === null || patch.tag === null)
          return { status: 400, error: true }
        const plant = this.plants.get(command.id.value)
        if (!plant) return { status: 404, error: true }
        const merged: ModelPlant = { ...plant }
        for (const field of ['name', 'tag', 'note'] as const) {
          const value = patch[field]
          if (value === null) delete merged[field]
          else if (value !== undefined) merged[field] = value
        }
        this.plants.set(plant.id, merged)
        return { status: 200, body: answerOf(merged) }
      }
      case 'remove':
        return this.plants.delete(command.id.value) ? { status: 204 } : { status: 404, error: true }
      case 'list': {
        const { limit = 20, offset = 0, tag } = command
        if (limit < 1 || limit > 100 || offset < 0) return { status: 400, error: true }
        const matching = [...this.plants.values()].filter((plant) => tag === undefined || plant.tag === tag)
        return {
          status: 200,
          body: { items: matching.slice(offset, offset + limit).map(answerOf), total: matching.length },
        }
      }
    }
  }

  /** The next integer after the highest id there is now (1 when there is none). */
  nextId(): bigint {
    let highest = 0n
    for (const id of this.plants.keys()) if (id > highest) highest = id
    return highest + 1n
  }

  /** The records as `GET /__mock/state` shows them, in order. */
  records(): unknown[] {
    return [...this.plants.values()].map((plant) => ({ ...plant, id: numberOf(plant.id) }))
  }
}

function plantOf(id: bigint, fields: { name?: string; tag?: string; note?: string }): ModelPlant {
  const plant: ModelPlant = { id, name: fields.name! }
  if (fields.tag !== undefined) plant.tag = fields.tag
  if (fields.note !== undefined) plant.note = fields.note
  return plant
}

/** The Plant schema's fields of a record: `note` is left out. */
function answerOf(plant: ModelPlant): unknown {
  return { id: numberOf(plant.id), name: plant.name, ...(plant.tag === undefined ? {} : { tag: plant.tag }) }
}

/** An integer as a response is parsed here: a number when exact, else a bigint. */
function numberOf(value: bigint): number | bigint {
  return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(value) : value
}

/** JSON with integers beyond 2^53 read exactly (as bigints, `9007199254740993.0` too), so an id rounded by the mock shows. */
function parseExact(text: string): unknown {
  return parseLossless(text, undefined, (literal) => {
    const integer = /^(-?\d+)(?:\.0+)?$/.exec(literal)
    return integer && !Number.isSafeInteger(Number(literal)) ? BigInt(integer[1]!) : Number(literal)
  })
}

// --- Requests --------------------------------------------------------------------------------------

function pathIdOf({ value, spelling }: PathId): string {
  if (spelling === 'point') return `${value}.0`
  if (spelling === 'exponent') return `${value}e0`
  return String(value)
}

/** A JSON object as text, with an integer id written exactly (JSON.stringify cannot write a bigint), `pointed` as `7.0`. */
function bodyText(id: bigint | undefined, fields: Record<string, unknown>, pointed = false): string {
  const rest = JSON.stringify(Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)))
  if (id === undefined) return rest
  const text = pointed ? `${id}.0` : String(id)
  return rest === '{}' ? `{"id":${text}}` : `{"id":${text},${rest.slice(1)}`
}

function requestOf(command: Command): { method: string; path: string; body?: string; contentType?: string } {
  switch (command.kind) {
    case 'create': {
      const { id, pointed, name, tag, note } = command
      const body = bodyText(id, { name, tag, note }, pointed)
      return { method: 'POST', path: '/plants', body, contentType: JSON_TYPE }
    }
    case 'read':
      return { method: 'GET', path: `/plants/${pathIdOf(command.id)}` }
    case 'replace': {
      const { bodyId, name, tag, note } = command
      const body = bodyText(bodyId, { name, tag, note })
      return { method: 'PUT', path: `/plants/${pathIdOf(command.id)}`, body, contentType: JSON_TYPE }
    }
    case 'merge': {
      const body = JSON.stringify(command.patch)
      return { method: 'PATCH', path: `/plants/${pathIdOf(command.id)}`, body, contentType: command.contentType }
    }
    case 'remove':
      return { method: 'DELETE', path: `/plants/${pathIdOf(command.id)}` }
    case 'list': {
      const query = new URLSearchParams()
      if (command.limit !== undefined) query.set('limit', String(command.limit))
      if (command.offset !== undefined) query.set('offset', String(command.offset))
      if (command.tag !== undefined) query.set('tag', command.tag)
      const search = query.size === 0 ? '' : `?${query}`
      return { method: 'GET', path: `/plants${search}` }
    }
  }
}

function describeCommand(command: Command): string {
  const { method, path, body, contentType } = requestOf(command)
  return `${method} ${path}${body === undefined ? '' : ` ${body}`}${contentType === MERGE_TYPE ? ' (merge-patch)' : ''}`
}

/** Sends a command, then checks the answer against what the model expects. */
async function check(app: MockApp, model: Model, command: Command, session: string | undefined, step: string) {
  const { method, path, body, contentType } = requestOf(command)
  const headers: Record<string, string> = { ...AUTH }
  if (contentType !== undefined) headers['content-type'] = contentType
  if (session !== undefined) headers['x-mock-session'] = session
  const response = await app.request(path, { method, headers, body })
  const text = await response.text()
  const expected = model.apply(command)
  const where = `${step}: ${describeCommand(command)} → ${response.status} ${text}`
  expect(response.status, where).toBe(expected.status)
  if ('error' in expected) {
    const error = parseExact(text) as { error?: unknown; message?: unknown }
    expect(error.error, where).toBe(expected.status)
    expect(typeof error.message, where).toBe('string')
    if (expected.message !== undefined) expect(error.message, where).toBe(expected.message)
  } else if (expected.body === undefined) {
    expect(text, where).toBe('')
  } else {
    expect(parseExact(text), where).toEqual(expected.body)
  }
}

/** The records of `plants` the mock holds, of the data without a session or of one. */
async function storedPlants(app: MockApp, session?: string): Promise<unknown> {
  const query = session === undefined ? '' : `&session=${encodeURIComponent(session)}`
  const response = await app.request(`/__mock/state?resource=plants${query}`)
  expect(response.status).toBe(200)
  return (parseExact(await response.text()) as { resources: { plants: unknown } }).resources.plants
}

// --- Generators ------------------------------------------------------------------------------------

/** Ids from a small range, so that creates collide and reads find; now and then one beyond 2^53. */
const idArb: fc.Arbitrary<bigint> = fc.oneof(
  { weight: 20, arbitrary: fc.bigInt({ min: 1n, max: 8n }) },
  { weight: 1, arbitrary: fc.constantFrom(BIG, BIG + 2n) },
)
/** Now and then a path id written as another JSON spelling of the integer (`7.0`, `7e0`): the path's validation takes it as 7. */
const pathIdArb: fc.Arbitrary<PathId> = fc.record({
  value: idArb,
  spelling: fc.oneof(
    { weight: 8, arbitrary: fc.constant('plain' as const) },
    { weight: 1, arbitrary: fc.constantFrom('point' as const, 'exponent' as const) },
  ),
})
const nameArb = fc.constantFrom('Fern', 'Basil', 'Mint')
const tagArb = fc.constantFrom('herb', 'shade')
const noteArb = fc.constantFrom('north window', 'water weekly')
/** Sometimes no name: the request breaks the description and must change nothing. */
const maybeNameArb = fc.option(nameArb, { freq: 12, nil: undefined })

const commandArb: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record(
      {
        kind: fc.constant('create' as const),
        id: idArb,
        // `7.0` is the integer 7: the same key as `7`.
        pointed: fc.boolean(),
        name: maybeNameArb,
        tag: tagArb,
        note: noteArb,
      },
      { requiredKeys: ['kind', 'name'] },
    ),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('read' as const), id: pathIdArb }) },
  {
    weight: 2,
    arbitrary: fc.record(
      {
        kind: fc.constant('replace' as const),
        id: pathIdArb,
        bodyId: idArb,
        name: maybeNameArb,
        tag: tagArb,
        note: noteArb,
      },
      { requiredKeys: ['kind', 'id', 'name'] },
    ),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('merge' as const),
      id: pathIdArb,
      patch: fc.record(
        {
          name: fc.option(nameArb, { freq: 10, nil: null }),
          tag: fc.option(tagArb, { freq: 10, nil: null }),
          note: fc.option(noteArb, { freq: 2, nil: null }),
          id: fc.option(fc.integer({ min: 1, max: 8 }), { freq: 2, nil: null }),
        },
        { requiredKeys: [] },
      ),
      contentType: fc.constantFrom(MERGE_TYPE, JSON_TYPE),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('remove' as const), id: pathIdArb }) },
  {
    weight: 2,
    arbitrary: fc.record(
      {
        kind: fc.constant('list' as const),
        limit: fc.oneof({ weight: 10, arbitrary: fc.integer({ min: 1, max: 5 }) }, fc.constantFrom(0, 100, 101)),
        offset: fc.oneof({ weight: 10, arbitrary: fc.integer({ min: 0, max: 6 }) }, fc.constant(-1)),
        tag: tagArb,
      },
      { requiredKeys: ['kind'] },
    ),
  },
)

const commandsArb = fc.array(commandArb, { maxLength: 40, size: 'max' })

// --- Properties ------------------------------------------------------------------------------------

describe('stateful mode against a reference model (Garden plants)', () => {
  let app: MockApp
  beforeAll(async () => {
    app = await createApp({ stateful: true, spec: GARDEN })
  })

  it('answers every request as the model does, and holds the records the model holds', async () => {
    await fc.assert(
      fc.asyncProperty(commandsArb, async (commands) => {
        app.mock.reset()
        const model = new Model()
        for (const [index, command] of commands.entries()) await check(app, model, command, undefined, `#${index}`)
        expect(await storedPlants(app)).toEqual(model.records())
      }),
      { numRuns: 100 },
    )
  })

  it('keeps each session to its own data, interleaved with another and with the data without a session', async () => {
    const lanes = [undefined, 'session-a', 'session-b'] as const
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.constantFrom(0, 1, 2), commandArb), { maxLength: 60, size: 'max' }),
        async (steps) => {
          app.mock.reset()
          const models = lanes.map(() => new Model())
          for (const [index, [lane, command]] of steps.entries())
            await check(app, models[lane]!, command, lanes[lane], `#${index} (${lanes[lane] ?? 'no session'})`)
          for (const [lane, session] of lanes.entries())
            expect(await storedPlants(app, session), session ?? 'no session').toEqual(models[lane]!.records())
        },
      ),
      { numRuns: 100 },
    )
  })
})

describe('stateful mode on the Plant Store as the seed has it (POST /plants only)', () => {
  let app: MockApp
  beforeAll(async () => {
    app = await createApp({ stateful: true })
  })

  it('creates a new id (200), refuses a taken one (400 naming it), and holds exactly the ids created', async () => {
    const createArb = fc.record(
      { id: fc.integer({ min: 1, max: 5 }), name: nameArb, tag: tagArb },
      { requiredKeys: ['id', 'name'] },
    )
    await fc.assert(
      fc.asyncProperty(fc.array(createArb, { maxLength: 20 }), async (creates) => {
        app.mock.reset()
        const created: Array<{ id: number; name: string; tag?: string }> = []
        for (const [index, plant] of creates.entries()) {
          const response = await app.request('/plants', {
            method: 'POST',
            headers: { ...AUTH, 'content-type': JSON_TYPE },
            body: JSON.stringify(plant),
          })
          const body = (await response.json()) as Record<string, unknown>
          const where = `#${index}: POST /plants ${JSON.stringify(plant)} → ${response.status} ${JSON.stringify(body)}`
          if (created.some((record) => record.id === plant.id)) {
            expect(response.status, where).toBe(400)
            expect(body, where).toEqual({ error: 400, message: `A plant with id ${plant.id} already exists.` })
          } else {
            // The Plant Store's Plant declares no id: the answer is the name and tag, the record keeps the id.
            expect(response.status, where).toBe(200)
            const { id: _id, ...answer } = plant
            expect(body, where).toEqual(answer)
            created.push(plant)
          }
        }
        expect(await storedPlants(app)).toEqual(created)
      }),
      { numRuns: 100 },
    )
  })
})
