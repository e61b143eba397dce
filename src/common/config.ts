import type { LogFormat } from './log.js'

/** The reserved prefix of the admin API, as WireMock reserves `/__admin`. Described in `admin-openapi.yaml`. */
export const ADMIN_PREFIX = '/__mock'

/** How requests are validated (see `MockOptions.validate`). */
export type ValidationMode = 'strict' | 'report' | 'off'

/** Everything the mock can be told. CLI flags and environment variables map onto these fields one to one. */
export interface MockOptions {
  /**
   * Path to the OpenAPI 3.0 / 3.1 description (YAML or JSON).
   * @default the embedded Plant Store `openapi.yaml`
   */
  spec?: string
  /**
   * Folder of fixtures (`<operationId>/<status>[.<name>].json`). A missing folder is an error
   * unless it is the default one.
   * @default the embedded `fixtures/` when `spec` is the embedded description, else `fixtures/` beside the spec
   */
  fixtures?: string
  /** @default 4010 (`PORT`); 0 picks a free port */
  port?: number
  /** @default '127.0.0.1' (`HOST`) */
  host?: string
  /** Generate every body with json-schema-faker, even where a fixture or example exists. @default false */
  dynamic?: boolean
  /** Seed for generated bodies: the same seed gives the same sequence of bodies. @default a random seed */
  seed?: number
  /** Accepted bearer tokens / API keys. Empty: any non-empty credential is accepted. @default [] */
  tokens?: string[]
  /** Largest request body in bytes; larger ones get 413. @default 1048576 (1 MiB) */
  maxBodyBytes?: number
  /** Log stacks of unexpected errors. @default false */
  debug?: boolean
  /** Scenario active at start (`MOCK_SCENARIO`): built in `default`, `error`, `unauthorized`, `dynamic`, or one of `fixtures/scenarios.yaml`. @default 'default' */
  scenario?: string
  /** Latency added to every answer: milliseconds, or a range `'MIN-MAX'` drawn uniformly. @default 0 */
  delay?: number | string
  /** Deepest nesting of arrays and objects a JSON request body may have; deeper gets 400 before parsing (`--max-depth`). @default 256 */
  maxDepth?: number
  /**
   * What a request that breaks the description gets (`--validate`): `strict` answers its violations
   * (400 or 422); `report` answers as if it were valid and reports them (`X-Mock-Violations`, the log
   * line, the journal); `off` looks for none (security still applies). `Prefer: validate=` sets it
   * for one request. @default 'strict'
   */
  validate?: ValidationMode
  /** Requests kept in the journal; the oldest are dropped. @default 1000 */
  journalSize?: number
  /** Bytes the journal keeps at most (body copies, headers...); the oldest are dropped (`--journal-bytes`). @default 64 MiB */
  journalBytes?: number
  /**
   * Largest generated body, serialised, in bytes (`--generation-bytes`). A schema whose string or
   * list alone needs more is warned about at start-up; a response whose generated body is larger is
   * answered 500 naming its schema. @default 1048576 (1 MiB)
   */
  generationBytes?: number
  /**
   * Longest CPU time generating one body may take, mending included, in milliseconds (`--generation-ms`).
   * Generation is stopped there and the response answered 500 naming its schema. @default 5000
   */
  generationMs?: number
  /**
   * Generated bodies carry every optional property (true), or only the required ones (false), at
   * every depth (`--json-schema-faker-fillProperties=false`). @default true
   */
  fillProperties?: boolean
  /**
   * Serve none of the description's examples, as Prism's `--ignoreExamples`: a response that has one
   * gets a generated body (seeded by `seed`) instead. Fixtures are still served. @default false
   */
  ignoreExamples?: boolean
  /** Serve the admin API under `/__mock`. @default true */
  admin?: boolean
  /** Bearer token the admin API requires (all routes but `/__mock/health`). @default none: open */
  adminToken?: string
  /** Answer CORS preflights and reflect the Origin. @default true */
  cors?: boolean
  /** Request lines as readable text, or one JSON object per line (`--log-format`). @default 'text' */
  logFormat?: LogFormat
  /** No request lines; the start line, warnings and errors are still printed (`--quiet`). @default false */
  quiet?: boolean
  /**
   * Reload the description, fixtures and scenarios when their files change (`startMockServer` and
   * the CLI only). A broken edit keeps the last good version serving. @default false
   */
  watch?: boolean
  /**
   * Folders outside the description's own folder tree that its `$ref`s may read (`--allow-ref-outside`).
   * A description may reference only files in its own folder tree, so that it cannot read any file
   * of the machine (#12). @default []
   */
  allowRefOutside?: string[]
  /**
   * Host names besides loopback ones that may reach the admin API of a mock on loopback, and whose
   * pages may change its state (`--allowed-hosts`). @default []
   */
  allowedHosts?: string[]
  /**
   * Keep data (`--stateful`, `MOCK_STATEFUL=true`): the resources the description implies (`/plants`
   * and `/plants/{id}`) are created, read, listed, replaced, patched and deleted for real, per session.
   * @default false
   */
  stateful?: boolean
  /**
   * With `stateful`, a JSON file the data is loaded from at start and saved to (atomically, within a
   * second after a change, and on close) (`--state-file`). A file that is not the mock's stops start-up.
   * @default none: the data lives in memory only
   */
  stateFile?: string
  /** Records kept at most per resource and session (`--state-limit`); a create beyond is refused. @default 10000 */
  stateLimit?: number
  /** validate every response before it is sent; a violation answers 500 (Prism's --errors) @default false */
  errors?: boolean
  /** Where a webhook sent on demand goes when no `to` is given (`--webhook-url`). @default none */
  webhookUrl?: string
  /** Signs every callback and webhook: `X-Hub-Signature-256: sha256=<HMAC-SHA256 of the body, hex>` (`--webhook-secret`). @default none */
  webhookSecret?: string
  /** Host names callbacks and webhooks may go to when the mock listens beyond loopback (`--webhook-allow`). @default none there; any on loopback */
  webhookAllow?: string[]
  /** Callbacks and webhooks being sent at once, at most; more wait in a queue (`--max-deliveries-in-flight`). @default 100 */
  maxDeliveriesInFlight?: number
  /** How long one attempt of a delivery may take, in ms (`--webhook-timeout`). @default 5000 */
  webhookTimeoutMs?: number
  /**
   * Proxy mode (`--proxy`, Prism's `proxy <description> <url>`): forward every request that matches an
   * operation to this http(s) URL, and check its answers against the description. @default none: mock
   */
  proxy?: string
  /** How long the upstream may take to start its answer, and pause within its body, in ms (`--proxy-timeout`). @default 30000 */
  proxyTimeoutMs?: number
  /** How long a new connection to the upstream may take to open, in ms (`--proxy-connect-timeout`). @default 5000 */
  proxyConnectTimeoutMs?: number
  /** Proxy mode: accept an https upstream's certificate that does not verify, a self-signed one (`--proxy-insecure`). @default false */
  proxyInsecure?: boolean
  /** Proxy mode: write every conforming upstream answer as a fixture into this folder (`--record`). @default none */
  record?: string
  /**
   * Consumer coverage (#29): the folder `coverage.json`, `coverage.md`, `junit.xml` and
   * `coverage.html` are written to at exit and on `POST /__mock/coverage/report` (`--coverage-report`). @default none
   */
  coverageReport?: string
  /**
   * Least shares (%) of operations, statuses (operation × declared status) and responses (× media type)
   * that must be exercised: the command line exits non-zero at shutdown when one is missed (`--coverage-min`). @default none
   */
  coverageMin?: CoverageMinimum
  /** With `record`: replace a fixture already recorded for the same request (`--record-overwrite`). @default false: kept */
  recordOverwrite?: boolean
  /** Proxy mode: only these operations (operationId or `METHOD /path`) go to the upstream; the others are mocked (`--proxy-only`). @default all */
  proxyOnly?: string[]
  /** Proxy mode: these operations are mocked, never forwarded (`--mock-only`). @default none */
  mockOnly?: string[]
  /** Proxy mode: an upstream answer of 404 or 501 is replaced by the mock's, for a backend half built (`--fallback`). @default false */
  proxyFallback?: boolean
  /** Attempts after the first, on a network error or a 5xx, the first after 500 ms, doubling (`--webhook-retries`). @default 3 */
  webhookRetries?: number
  /**
   * Keep the state in Redis, shared by every replica that names the same one (`--store`, `MOCK_STORE`):
   * `redis://[user:pass@]host:port/db`, or `rediss://` for TLS. @default none: the state is in memory
   */
  store?: string
  /** What the store's keys start with, so that two mocks can share one Redis (`--store-prefix`). @default the description's title and version */
  storePrefix?: string
  /** With `store`: a session's data expires this long after its last write, in ms (`--session-ttl`). @default 86400000 (24 h) */
  sessionTtlMs?: number
}

export interface Delay {
  min: number
  max: number
}

export type ResolvedOptions = Required<
  Omit<
    MockOptions,
    | 'delay'
    | 'adminToken'
    | 'stateFile'
    | 'webhookUrl'
    | 'webhookSecret'
    | 'proxy'
    | 'proxyOnly'
    | 'record'
    | 'coverageReport'
    | 'coverageMin'
    | 'store'
    | 'storePrefix'
  >
> & {
  store: string | undefined
  storePrefix: string | undefined
  coverageReport: string | undefined
  coverageMin: CoverageMinimum | undefined
  fixturesRequired: boolean
  delay: Delay
  adminToken: string | undefined
  stateFile: string | undefined
  webhookUrl: string | undefined
  webhookSecret: string | undefined
  proxy: string | undefined
  proxyOnly: string[] | undefined
  record: string | undefined
}

/** `--coverage-min operations=100,statuses=80`: the least share (%) of each that must be exercised (#29). */
export interface CoverageMinimum {
  operations?: number
  statuses?: number
  responses?: number
  /** Fixtures and declared examples served. */
  bodies?: number
  /** Stubs and scenario rules that answered. */
  rules?: number
  /** Declared callbacks and webhooks sent. */
  events?: number
}
