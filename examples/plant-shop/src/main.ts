import { type Plant, createPlantShopClient } from './plants'

const shop = createPlantShopClient()
const list = document.querySelector<HTMLUListElement>('#plants')!
const form = document.querySelector<HTMLFormElement>('#add-plant')!
const message = document.querySelector<HTMLParagraphElement>('#message')!

function show(plants: Plant[]): void {
  list.replaceChildren(
    ...plants.map((plant) => {
      const item = document.createElement('li')
      item.textContent = plant.tag ? `${plant.name} (${plant.tag})` : plant.name
      return item
    }),
  )
}

async function refresh(): Promise<void> {
  try {
    show(await shop.listPlants())
    message.textContent = ''
  } catch (error) {
    message.textContent = `Could not list the plants: ${(error as Error).message}`
  }
}

form.addEventListener('submit', (event) => {
  event.preventDefault()
  const data = new FormData(form)
  const tag = String(data.get('tag') ?? '').trim()
  shop
    .addPlant({ name: String(data.get('name') ?? '').trim(), ...(tag ? { tag } : {}) })
    .then(async () => {
      form.reset()
      await refresh()
    })
    .catch((error: Error) => {
      message.textContent = `Could not add the plant: ${error.message}`
    })
})

void refresh()
