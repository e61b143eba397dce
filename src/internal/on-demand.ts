/**
 * A package imported the first time it is needed rather than at start-up, so that a browser build
 * keeps it in a chunk of its own, fetched only by a page that needs it (#33): json-schema-faker for
 * generated bodies, RE2 for a description's patterns, the YAML parser for a YAML file.
 * One for every app, as a static import would be.
 */
export interface OnDemand<T> {
  /** The module once loaded; `undefined` before. */
  readonly loaded: T | undefined
  /** Loads it, once (a failed load may be tried again); rejects past `LOAD_TIMEOUT_MS`. */
  load(): Promise<T>
}

/** Longest wait for a package's chunk: a browser fetches it over the network. */
export const LOAD_TIMEOUT_MS = 30_000

export function onDemand<T>(name: string, importer: () => Promise<T>): OnDemand<T> {
  let loaded: T | undefined
  let loading: Promise<T> | undefined
  const load = (): Promise<T> => {
    if (loaded) return Promise.resolve(loaded)
    loading ??= withinLoadTimeout(name, importer()).then(
      (module) => (loaded = module),
      (error: unknown) => {
        loading = undefined
        throw error
      },
    )
    return loading
  }
  return {
    get loaded() {
      return loaded
    },
    load,
  }
}

function withinLoadTimeout<T>(name: string, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${name} did not load within ${LOAD_TIMEOUT_MS} ms`)), LOAD_TIMEOUT_MS)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}
