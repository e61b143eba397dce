/**
 * The app's API client (src/plants.ts) against the mock as MSW handlers: the same description, the
 * same validation, the same stateful data as the dev server's mock, with no server and no port.
 */
import { fileURLToPath } from 'node:url'
import { setupServer } from 'msw/node'
import { createHandlers } from 'plant-store-mock/msw'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { PlantShopError, createPlantShopClient } from '../src/plants'

// Node's fetch needs an absolute URL; the description's `servers` is /api, so /api/plants is its /plants.
const API = 'http://localhost/api'
const { handlers, mock } = await createHandlers({
  spec: fileURLToPath(new URL('../openapi.yaml', import.meta.url)),
  baseUrl: API,
  stateful: true,
})
const server = setupServer(...handlers)
const shop = createPlantShopClient(API)

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }))
// The seed plants, no stubs, an empty journal again for each test.
afterEach(() => mock.reset())
afterAll(() => server.close())

it('lists the plants the shop starts with', async () => {
  expect((await shop.listPlants()).map((plant) => plant.name)).toEqual(['Monstera', 'Snake plant'])
})

it('adds a plant, which is listed from then on', async () => {
  const fern = await shop.addPlant({ name: 'Fern', tag: 'shade' })
  expect(fern).toEqual({ id: 3, name: 'Fern', tag: 'shade' })
  expect(await shop.listPlants()).toContainEqual(fern)
  expect(mock.requests({ operation: 'addPlant' }).map((entry) => entry.status)).toEqual([201])
})

it('tells why a plant is refused: the mock validates the body against the description', async () => {
  const refused = await shop.addPlant({ name: '' }).catch((error: unknown) => error)
  expect(refused).toBeInstanceOf(PlantShopError)
  expect(refused).toMatchObject({ status: 400, message: expect.stringContaining('body.name') })
})

it('reports the API’s own message when it cannot answer', async () => {
  mock.stub({
    operation: 'listPlants',
    status: 500,
    body: { error: 500, message: 'The shop is closed for stocktaking.' },
  })
  await expect(shop.listPlants()).rejects.toThrow('The shop is closed for stocktaking.')
})
