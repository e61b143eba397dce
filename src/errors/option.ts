import { StartupError, type StartupErrorCode } from './startup-error.js'

const fail = (code: StartupErrorCode, message: string) => new StartupError(code, message)

/** An option of `createMockServer` out of its range (the CLI names its flags itself), or an address it cannot listen on. */
export const optionErrors = {
  optionBadPort: (port: unknown) =>
    fail('option_bad_port', `port must be a whole number from 0 to 65535, got ${port}.`),
  optionBadSeed: (seed: unknown) => fail('option_bad_seed', `seed must be a whole number, got ${seed}.`),
  optionBadMaxBody: (bytes: unknown) =>
    fail('option_bad_max_body', `max body size must be a positive number of bytes, got ${bytes}.`),
  optionBadToken: () => fail('option_bad_token', 'a token must be non-empty and contain no white space.'),
  optionBadAdminToken: () =>
    fail('option_bad_admin_token', 'the admin token must be non-empty and contain no white space.'),
  optionBadJournalSize: (size: unknown) =>
    fail('option_bad_journal_size', `journal size must be a whole number of requests, got ${size}.`),
  optionBadJournalBytes: (bytes: unknown) =>
    fail('option_bad_journal_bytes', `journal bytes must be a positive number of bytes, got ${bytes}.`),
  optionBadMaxDepth: (depth: unknown) =>
    fail('option_bad_max_depth', `max depth must be a whole number from 1 to 10000, got ${depth}.`),
  optionBadGenerationBytes: (bytes: unknown) =>
    fail('option_bad_generation_bytes', `generation bytes must be a positive number of bytes, got ${bytes}.`),
  optionBadGenerationMs: (ms: unknown) =>
    fail('option_bad_generation_ms', `generation ms must be a positive whole number of milliseconds, got ${ms}.`),
  optionBadValidate: (mode: string) =>
    fail('option_bad_validate', `validate must be "strict", "report" or "off", got "${mode}".`),
  optionBadLogFormat: (format: string) =>
    fail('option_bad_log_format', `log format must be "text" or "json", got "${format}".`),
  optionBadDelay: (text: string, maxMs: number) =>
    fail('option_bad_delay', `delay must be milliseconds or a range MIN-MAX, at most ${maxMs}, got "${text}".`),
  optionBadSize: (text: string) =>
    fail('option_bad_size', `"${text}" is not a size; use bytes or a unit, e.g. 1048576, 512kb, 1mb.`),
  portInUse: (host: string, port: number) =>
    fail(
      'port_in_use',
      `Port ${port} on ${host} is already in use. Stop what holds it, or pick another port with --port (0 picks a free one).`,
    ),
  portForbidden: (host: string, port: number) =>
    fail(
      'port_forbidden',
      `Not allowed to listen on ${host}:${port}. Ports below 1024 need privileges; pick another with --port.`,
    ),
  hostUnavailable: (host: string) =>
    fail('host_unavailable', `Cannot listen on host ${host}: it is not an address of this machine.`),
  listenFailed: (host: string, port: number, reason: string) =>
    fail('listen_failed', `Cannot listen on ${host}:${port}: ${reason}`),
  optionBadWebhookUrl: (value: string) =>
    fail('option_bad_webhook_url', `webhookUrl must be an http: or https: URL, got "${value}".`),
  optionBadDeliveryCount: (name: string, min: number, max: number, value: unknown) =>
    fail('option_bad_delivery', `${name} must be a whole number from ${min} to ${max}, got ${String(value)}.`),
  optionBadProxy: (value: string) =>
    fail('option_bad_proxy', `proxy must be the upstream's http: or https: URL, got "${value}".`),
  optionBadProxyOperation: (option: string, name: string, known: readonly string[]) =>
    fail(
      'option_bad_proxy',
      `${option} names "${name}", which is no operation of the description; use an operationId or "METHOD /path" (known: ${known.slice(0, 20).join(', ')}${known.length > 20 ? ', …' : ''}).`,
    ),
  optionBadStore: (value: string, reason: string) =>
    fail(
      'option_bad_store',
      `store must be a redis:// or rediss:// URL (redis://[user:pass@]host:port/db), got "${value}": ${reason}.`,
    ),
  optionBadSessionTtl: (value: unknown) =>
    fail(
      'option_bad_session_ttl',
      `sessionTtlMs must be a whole number of milliseconds from 1000 up, got ${String(value)}.`,
    ),
  /** The Vite plugin's `base`: the root, or a path with a query or spaces, which would take Vite's own requests. */
  optionBadBase: (base: string) =>
    fail(
      'option_bad_base',
      `mockPlugin: base must be a path that only the mock answers under, such as '/api', got '${base}'.`,
    ),
  /** Redis is not there at start-up: the mock refuses to start rather than answer 503s from its first request. */
  storeUnreachable: (url: string, reason: string) =>
    fail(
      'store_unreachable',
      `Cannot reach the store at ${url}: ${reason}. Start Redis there, or fix --store (MOCK_STORE); without --store the mock keeps its state in memory.`,
    ),
  /** Every journal slot of the replicas on one store is leased (#32). */
  storeReplicasFull: (url: string, slots: number) =>
    fail(
      'store_replicas_full',
      `${slots} replicas already serve this mock on the store at ${url}: that is the most one store prefix takes. Give the others a --store-prefix of their own.`,
    ),
  optionProxyOnly: (option: string) =>
    fail(
      'option_bad_proxy',
      option === 'recordOverwrite'
        ? 'recordOverwrite needs record: it says what to do with a fixture record would write again.'
        : `${option} works in proxy mode only: give proxy (--proxy <url>) too.`,
    ),
}
