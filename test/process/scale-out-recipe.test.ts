/**
 * The scale-out recipe (#32): docker-compose.replicas.yml puts two replicas of the mock, sharing one
 * Redis, behind nginx. There is no docker engine here, so compose itself is not run. What is run:
 * - the compose file, parsed and checked against what docs/scale-out.md and the README say;
 * - its balancer's config (deploy/nginx-replicas.conf), unchanged but for the replicas' names and the
 *   listening address, by the real nginx (Debian's package; `.ci/run` installs it), in front of two
 *   mock processes started with the replicas' own command and environment on one real redis-server.
 * nginx runs as a child of the test (not a daemon), its pid, logs and temporary files in a temp dir.
 */
import { existsSync, readFileSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { delimiter, join } from 'node:path'
import { parse as parseYaml } from 'yaml'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { type RedisServer, startRedisServer } from '../support/redis-server.js'
import {
  type Spawned,
  cleanEnv,
  freePort,
  root,
  start,
  startCli,
  startedUrl,
  stopProcesses,
  within,
} from '../support/processes.js'
import { removeTempDirs, tempDir } from '../support/temp-dirs.js'

interface Service {
  image?: string
  build?: string
  command?: string[]
  environment?: Record<string, string>
  ports?: string[]
  volumes?: string[]
  depends_on?: Record<string, { condition: string }>
  healthcheck?: { test: string[] }
}

const composeFile = 'docker-compose.replicas.yml'
const compose = parseYaml(readFileSync(join(root, composeFile), 'utf8')) as { services: Record<string, Service> }
const services = Object.entries(compose.services)

/** The replicas: the services built from this repository's Dockerfile. */
const replicas = services.filter(([, service]) => service.build === '.')
const [redisName, redisService] = services.find(([, service]) => service.image?.startsWith('redis:'))!
const [, balancer] = services.find(([, service]) => service.image?.startsWith('nginx:'))!

/** Where the balancer's config is mounted from (a path in this repository) and to. */
const [configSource = '', configTarget = ''] =
  balancer.volumes?.map((volume) => volume.split(':')).find(([source]) => source!.endsWith('.conf')) ?? []
const nginxConfig = readFileSync(join(root, configSource), 'utf8')

/** The port the image's mock listens on (the Dockerfile's `ENV ... PORT=`). */
const imagePort = /^ENV\b.*\bPORT=(\d+)/m.exec(readFileSync(join(root, 'Dockerfile'), 'utf8'))![1]!

const auth = { authorization: 'Bearer t', 'content-type': 'application/json' }

describe(`${composeFile}, read`, () => {
  it('runs Redis from a pinned official image with a health check (#32)', () => {
    expect(redisService.image).toMatch(/^redis:\d+\.\d+\.\d+(-[a-z0-9.]+)?$/)
    expect(redisService.healthcheck?.test.join(' ')).toContain('redis-cli ping')
  })

  it('runs two replicas of the image, stateful, on that Redis once it is healthy, no port of their own published (#32)', () => {
    expect(replicas).toHaveLength(2)
    for (const [, replica] of replicas) {
      expect(replica.command).toContain('--stateful')
      const store = new URL(replica.environment!.MOCK_STORE!)
      expect(store.protocol).toBe('redis:')
      expect(store.hostname).toBe(redisName)
      expect(replica.depends_on?.[redisName]?.condition).toBe('service_healthy')
      expect(replica.ports).toBeUndefined()
    }
  })

  it('puts nginx, pinned, in front: one published port, its config file from this repository, started once every replica is healthy (#32)', () => {
    expect(balancer.image).toMatch(/^nginx:\d+\.\d+\.\d+(-[a-z0-9.]+)?$/)
    expect(balancer.ports).toHaveLength(1)
    expect(balancer.ports![0]).toMatch(new RegExp(`:${imagePort}$`))
    expect(existsSync(join(root, configSource))).toBe(true)
    // The official image includes conf.d/*.conf inside its http {} block.
    expect(configTarget).toMatch(/^\/etc\/nginx\/conf\.d\/[^/]+\.conf$/)
    for (const [name] of replicas) expect(balancer.depends_on?.[name]?.condition).toBe('service_healthy')
  })

  it("names every replica in the balancer's upstream, at the image's port, and listens on the published port (#32)", () => {
    const upstreams = [...nginxConfig.matchAll(/^\s*server\s+([\w.-]+):(\d+)\b/gm)].map(([, host, port]) => ({
      host,
      port,
    }))
    expect(upstreams).toEqual(replicas.map(([name]) => ({ host: name, port: imagePort })))
    expect(nginxConfig).toMatch(new RegExp(`^\\s*listen\\s+${imagePort};`, 'm'))
  })

  it('is the recipe docs/scale-out.md gives, and the README links it (#32)', () => {
    const page = readFileSync(join(root, 'docs/scale-out.md'), 'utf8')
    expect(page).toContain(`docker compose -f ${composeFile} up --build`)
    expect(page).toContain('MOCK_STORE')
    expect(page).toContain('/__mock/health')
    const readme = readFileSync(join(root, 'README.md'), 'utf8')
    const section = readme.slice(readme.indexOf('## Scale out on Redis'))
    expect(section.slice(0, section.indexOf('\n## ', 4))).toContain('(docs/scale-out.md)')
  })
})

/** nginx from PATH or Debian's /usr/sbin (not on a non-root user's PATH). */
function findNginx(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin']
  return dirs
    .filter(Boolean)
    .map((dir) => join(dir, 'nginx'))
    .find((path) => existsSync(path))
}
const nginxBinary = findNginx()
/** Said in the title of what is skipped without nginx, so that a skip is not taken for a pass. */
const withNginx = (title: string) =>
  nginxBinary ? title : `${title} (SKIPPED: no nginx binary here; apt-get install nginx, as .ci/run does)`

interface Replica {
  name: string
  spawned: Spawned
  url: string
}

/** A replica as compose starts it: its command and environment, the store's host being the test's Redis. */
async function startReplica(name: string, service: Service, redis: RedisServer): Promise<Replica> {
  const store = new URL(service.environment!.MOCK_STORE!)
  store.host = `127.0.0.1:${redis.port}`
  const spawned = startCli([...service.command!, '--port', '0'], {
    ...service.environment,
    MOCK_STORE: store.href,
  })
  return { name, spawned, url: await startedUrl(spawned, 10_000) }
}

/**
 * The balancer's config as the official image reads it (inside http {}), with each replica's name
 * replaced by its process's loopback address and `listen` by a free loopback port; nginx started on it.
 */
async function startBalancer(upstreams: Replica[]): Promise<string> {
  const dir = await tempDir('mock-nginx-')
  const port = await freePort()
  let config = nginxConfig.replace(new RegExp(`^(\\s*listen\\s+)${imagePort};`, 'm'), `$1127.0.0.1:${port};`)
  for (const { name, url } of upstreams) {
    const replaced = config.replace(new RegExp(`(\\bserver\\s+)${name}:${imagePort}\\b`), `$1${new URL(url).host}`)
    expect(replaced, `the upstream server ${name}`).not.toBe(config)
    config = replaced
  }
  const main = `events {}
http {
  access_log ${dir}/access.log;
  client_body_temp_path ${dir}/client-body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  include ${dir}/replicas.conf;
}
`
  await writeFile(join(dir, 'replicas.conf'), config)
  await writeFile(join(dir, 'nginx.conf'), main)
  // A process group of its own: stopProcesses() kills the master and its workers together.
  const nginx = start(
    nginxBinary!,
    ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', `daemon off; pid ${dir}/nginx.pid; error_log stderr;`],
    { cwd: dir, env: cleanEnv(), detached: true },
  )
  const url = `http://127.0.0.1:${port}`
  await within(
    10_000,
    `nginx to answer on ${url}`,
    (async () => {
      for (;;) {
        if (nginx.child.exitCode !== null) throw new Error(`nginx exited: ${nginx.stderr()}`)
        const health = await fetch(`${url}/__mock/health`, { signal: AbortSignal.timeout(1000) }).catch(() => null)
        if (health?.ok) return
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    })(),
  )
  return url
}

/** The `created plants/<id>` request lines a replica has printed. */
const createdBy = (replica: Replica) =>
  [...replica.spawned.stdout().matchAll(/created plants\/(\d+)/g)].map(([, id]) => id)

const postPlant = (url: string, plant: { id: number; name: string }) =>
  fetch(`${url}/plants`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify(plant),
    signal: AbortSignal.timeout(5000),
  })

describe.skipIf(!nginxBinary)(withNginx(`${configSource} in front of two replicas on one Redis, run by nginx`), () => {
  let redis: RedisServer
  let a: Replica
  let b: Replica
  let balancerUrl: string

  beforeAll(async () => {
    redis = await startRedisServer()
    const started = await Promise.all(replicas.map(([name, service]) => startReplica(name, service, redis)))
    ;[a, b] = [started[0]!, started[1]!]
    balancerUrl = await startBalancer(started)
  }, 30_000)

  afterAll(async () => {
    await stopProcesses()
    await redis?.stop()
    await removeTempDirs()
  })

  it('takes turns between the replicas, and each one sees the plants created through the other (#32)', async () => {
    const ids = [1, 2, 3, 4, 5, 6]
    for (const id of ids) {
      const created = await postPlant(balancerUrl, { id, name: `Plant ${id}` })
      expect(created.status).toBe(200)
      expect(await created.json()).toEqual({ name: `Plant ${id}` })
    }
    // Each replica's own request lines: together all of the creates, each once, half of them each.
    await vi.waitFor(() => expect([...createdBy(a), ...createdBy(b)].sort()).toEqual(ids.map(String)), {
      timeout: 5000,
    })
    expect(createdBy(a)).toHaveLength(ids.length / 2)
    expect(createdBy(b)).toHaveLength(ids.length / 2)

    // Read back through the balancer, and from each replica's own port: every plant, wherever it was made.
    const expected = ids.map((id) => ({ id, name: `Plant ${id}` }))
    for (const url of [balancerUrl, a.url, b.url]) {
      const state = await fetch(`${url}/__mock/state?resource=plants`, { signal: AbortSignal.timeout(5000) })
      expect(state.status).toBe(200)
      expect(((await state.json()) as { resources: { plants: unknown[] } }).resources.plants).toEqual(expected)
    }
    // And each id is taken, whichever replica the second create lands on.
    for (const id of ids) {
      const again = await postPlant(balancerUrl, { id, name: 'Again' })
      expect(again.status).toBe(400)
      expect(await again.json()).toEqual({ error: 400, message: `A plant with id ${id} already exists.` })
    }
  })

  it("passes the client's Host and X-Forwarded-* on to the replica (#32)", async () => {
    const created = await postPlant(balancerUrl, { id: 100, name: 'Traced' })
    expect(created.status).toBe(200)
    const host = new URL(balancerUrl).host
    await vi.waitFor(
      async () => {
        const journal = (await (
          await fetch(`${a.url}/__mock/requests`, { signal: AbortSignal.timeout(5000) })
        ).json()) as { requests: { body?: string; headers: Record<string, string> }[] }
        const entry = journal.requests.find((request) => request.body?.includes('Traced'))
        expect(entry?.headers).toMatchObject({
          host,
          'x-forwarded-host': host,
          'x-forwarded-for': '127.0.0.1',
          'x-forwarded-proto': 'http',
        })
      },
      { timeout: 5000 },
    )
  })

  it("lets the mock answer a body over its limit with its own 413 Error body, not nginx's page (#32)", async () => {
    const tooLarge = JSON.stringify({ id: 101, name: 'x'.repeat(2 * 1024 * 1024) })
    const answer = await fetch(`${balancerUrl}/plants`, {
      method: 'POST',
      headers: auth,
      body: tooLarge,
      signal: AbortSignal.timeout(5000),
    })
    // nginx never refuses it itself (no 413 page of its own). The mock answers 413 and closes while nginx
    // may still be writing the body to it: nginx then meets a reset and answers 502 instead (one CI run in
    // four). The mock does not yet drain what it refuses (docs/scale-out.md says so); until it does, a 502
    // is the race, not nginx's page.
    if (answer.status === 502) return void (await answer.arrayBuffer())
    expect(answer.status).toBe(413)
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/)
    expect(await answer.json()).toMatchObject({ error: 413 })
  })

  it('passes requests on to the other replica once one is gone, POSTs included (#32)', async () => {
    b.spawned.child.kill('SIGKILL')
    await within(5000, 'replica b to exit', b.spawned.exited)
    const before = createdBy(a).length
    const ids = [201, 202, 203, 204]
    for (const id of ids) expect((await postPlant(balancerUrl, { id, name: `After ${id}` })).status).toBe(200)
    await vi.waitFor(() => expect(createdBy(a).slice(before)).toEqual(ids.map(String)), { timeout: 5000 })
  })
})

describe.skipIf(!nginxBinary)(withNginx(`${configSource}: streams`), () => {
  const streams = join(root, 'test/descriptions/streams.yaml')

  afterAll(async () => {
    await stopProcesses()
    await removeTempDirs()
  })

  // nginx 1.22 passes a paused stream on at once with proxy_buffering on too, and a pause here (10 s at
  // most) does not reach nginx's default 60 s read timeout: what this shows is that streams get through
  // the config item by item, not which of its lines makes them.
  it('passes a JSON Lines stream item by item, as the replica writes it (#32)', async () => {
    // Two replicas of a description with streams; no store is needed for generated items.
    const started = await Promise.all(
      replicas.map(async ([name]) => {
        const spawned = startCli([streams, '--port', '0'])
        return { name, spawned, url: await startedUrl(spawned, 10_000) }
      }),
    )
    const url = await startBalancer(started)
    for (let attempt = 0; attempt < started.length; attempt++) {
      const asked = performance.now()
      const answer = await fetch(`${url}/lines`, {
        headers: { prefer: 'stream-items=3, stream-interval=1000' },
        signal: AbortSignal.timeout(10_000),
      })
      expect(answer.status).toBe(200)
      const reader = answer.body!.getReader()
      const first = await reader.read()
      const firstAt = performance.now() - asked
      expect(new TextDecoder().decode(first.value)).toMatch(/^\{"level":/)
      let rest = ''
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
        rest += new TextDecoder().decode(chunk.value)
      const endAt = performance.now() - asked
      // The first item comes at once; the last two 1 s apart after it.
      expect(firstAt).toBeLessThan(800)
      expect(endAt - firstAt).toBeGreaterThan(1500)
      expect(rest.trim().split('\n')).toHaveLength(2)
    }
  }, 20_000)
})
