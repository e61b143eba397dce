/** The Plant Shop API as the app calls it: list the plants, add one. No framework, only fetch. */

export interface Plant {
  id: number
  name: string
  tag?: string
}

export interface NewPlant {
  name: string
  tag?: string
}

/** A call the API refused or could not answer: `status` is the HTTP status, `message` the API's reason. */
export class PlantShopError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
    this.name = 'PlantShopError'
  }
}

export interface PlantShopClient {
  listPlants(): Promise<Plant[]>
  addPlant(plant: NewPlant): Promise<Plant>
}

/**
 * The API's client. `baseUrl` is where the API is: `/api` in the browser (the dev server's mock, or
 * the real API behind the same path), an absolute URL in Node, whose fetch needs one.
 */
export function createPlantShopClient(baseUrl = '/api', token = 'dev-token'): PlantShopClient {
  const call = async <T>(path: string, init: RequestInit = {}): Promise<T> => {
    const response = await fetch(`${baseUrl}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
    })
    const body = (await response.json().catch(() => undefined)) as { message?: string } | undefined
    if (!response.ok) throw new PlantShopError(response.status, body?.message ?? `HTTP ${response.status}`)
    return body as T
  }
  return {
    listPlants: async () => (await call<{ items: Plant[] }>('/plants')).items,
    addPlant: (plant) => call<Plant>('/plants', { method: 'POST', body: JSON.stringify(plant) }),
  }
}
