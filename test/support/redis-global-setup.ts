import type { TestProject } from 'vitest/node'
import { type RedisServer, startRedisServer } from './redis-server.js'

let server: RedisServer | undefined

/** The `redis` project's set-up: one redis-server for all its files, stopped after them. */
export async function setup(project: TestProject): Promise<void> {
  server = await startRedisServer()
  project.provide('redisUrl', server.url)
}

export async function teardown(): Promise<void> {
  await server?.stop()
}
