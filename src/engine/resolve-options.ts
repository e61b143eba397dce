import { dirname, resolve } from 'pathe'
import { startupErrors } from '../errors/index.js'
import { DEFAULT_JOURNAL_BYTES } from '../journal/journal.js'
import { GENERATION_BUDGET } from '../generation/generation-budget.js'
import type { MockOptions, ResolvedOptions, ValidationMode } from '../common/config.js'
import { parseDelay } from '../common/option-values.js'
import type { LogFormat } from '../common/log.js'
import { isWebUrl } from '../internal/web-url.js'
import type { Platform } from '../common/platform.js'

/** What resolving the options asks of the platform. */
type OptionsPlatform = Pick<Platform, 'embedded' | 'files'>

export const defaults = {
  port: 4010,
  host: '127.0.0.1',
  maxBodyBytes: 1024 * 1024,
} as const

/**
 * Fills in defaults and checks every option once, so that nothing downstream has to. The platform says
 * where the embedded description and fixtures are, and whether a `fixtures/` lies beside another.
 */
export function resolveOptions(options: MockOptions, platform: OptionsPlatform): ResolvedOptions {
  const {
    spec = platform.embedded.spec,
    port = defaults.port,
    host = defaults.host,
    dynamic = false,
    seed = Math.floor(Math.random() * 2 ** 31),
    tokens = [],
    maxBodyBytes = defaults.maxBodyBytes,
    debug = false,
    scenario = 'default',
    delay = 0,
    journalSize = 1000,
    maxDepth = 256,
    validate = 'strict',
    journalBytes = DEFAULT_JOURNAL_BYTES,
    generationBytes = GENERATION_BUDGET.bytes,
    generationMs = GENERATION_BUDGET.ms,
    fillProperties = true,
    ignoreExamples = false,
    admin = true,
    adminToken,
    cors = true,
    logFormat = 'text',
    quiet = false,
    watch = false,
    allowRefOutside = [],
    allowedHosts = [],
    errors = false,
    stateful = false,
    stateFile,
    stateLimit = 10_000,
    webhookUrl,
    webhookSecret,
    webhookAllow = [],
    maxDeliveriesInFlight = 100,
    webhookTimeoutMs = 5000,
    webhookRetries = 3,
    proxy,
    proxyTimeoutMs = 30_000,
    proxyConnectTimeoutMs = 5000,
    proxyInsecure = false,
    record,
    recordOverwrite = false,
    proxyOnly,
    mockOnly = [],
    proxyFallback = false,
    store,
    storePrefix,
    sessionTtlMs = DEFAULT_SESSION_TTL_MS,
  } = options
  const specPath = resolve(spec)
  const fixtures = options.fixtures ? resolve(options.fixtures) : defaultFixtures(specPath, platform)

  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw startupErrors.optionBadPort(port)
  }
  if (!Number.isSafeInteger(seed)) throw startupErrors.optionBadSeed(seed)
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1) {
    throw startupErrors.optionBadMaxBody(maxBodyBytes)
  }
  if (tokens.some((token) => token.length === 0 || /\s/.test(token))) {
    throw startupErrors.optionBadToken()
  }
  if (!Number.isSafeInteger(journalSize) || journalSize < 0) {
    throw startupErrors.optionBadJournalSize(journalSize)
  }
  if (!Number.isSafeInteger(maxDepth) || maxDepth < 1 || maxDepth > 10_000) {
    throw startupErrors.optionBadMaxDepth(maxDepth)
  }
  if (!Number.isSafeInteger(journalBytes) || journalBytes < 1) {
    throw startupErrors.optionBadJournalBytes(journalBytes)
  }
  if (!Number.isSafeInteger(generationBytes) || generationBytes < 1) {
    throw startupErrors.optionBadGenerationBytes(generationBytes)
  }
  if (!Number.isSafeInteger(generationMs) || generationMs < 1) {
    throw startupErrors.optionBadGenerationMs(generationMs)
  }
  if (adminToken !== undefined && (adminToken.length === 0 || /\s/.test(adminToken))) {
    throw startupErrors.optionBadAdminToken()
  }
  if (!Number.isSafeInteger(stateLimit) || stateLimit < 1) throw startupErrors.optionBadStateLimit(stateLimit)
  checkDeliveryOptions({ webhookUrl, maxDeliveriesInFlight, webhookTimeoutMs, webhookRetries })
  if (proxy !== undefined && !isWebUrl(proxy)) throw startupErrors.optionBadProxy(proxy)
  if (!Number.isSafeInteger(proxyTimeoutMs) || proxyTimeoutMs < 1 || proxyTimeoutMs > 600_000)
    throw startupErrors.optionBadDeliveryCount('proxyTimeoutMs', 1, 600_000, proxyTimeoutMs)
  if (!Number.isSafeInteger(proxyConnectTimeoutMs) || proxyConnectTimeoutMs < 1 || proxyConnectTimeoutMs > 600_000)
    throw startupErrors.optionBadDeliveryCount('proxyConnectTimeoutMs', 1, 600_000, proxyConnectTimeoutMs)
  if (proxy === undefined && (record !== undefined || proxyInsecure || recordOverwrite))
    throw startupErrors.optionProxyOnly(
      record !== undefined ? 'record' : proxyInsecure ? 'proxyInsecure' : 'recordOverwrite',
    )
  if (recordOverwrite && record === undefined) throw startupErrors.optionProxyOnly('recordOverwrite')
  if (store !== undefined) checkStoreUrl(store)
  if (store !== undefined && stateFile !== undefined)
    throw startupErrors.optionBadStore(
      store,
      'the data is then in the store, which a state file (stateFile) cannot also hold; give one of them',
    )
  if (!Number.isSafeInteger(sessionTtlMs) || sessionTtlMs < 1000) throw startupErrors.optionBadSessionTtl(sessionTtlMs)
  return {
    spec: specPath,
    fixtures,
    fixturesRequired: options.fixtures !== undefined,
    port,
    host,
    dynamic,
    seed,
    tokens,
    maxBodyBytes,
    debug,
    scenario,
    delay: parseDelay(delay),
    journalSize,
    journalBytes,
    generationBytes,
    generationMs,
    fillProperties,
    ignoreExamples,
    maxDepth,
    admin,
    adminToken,
    cors,
    validate: checkValidationMode(validate),
    logFormat: checkLogFormat(logFormat),
    quiet,
    watch,
    allowRefOutside: allowRefOutside.map((folder) => resolve(folder)),
    allowedHosts: allowedHosts.map((name) => name.trim().toLowerCase()).filter(Boolean),
    errors,
    // A state file means keeping data: `--state-file` alone turns stateful mode on.
    stateful: stateful || stateFile !== undefined,
    stateFile: stateFile === undefined ? undefined : resolve(stateFile),
    stateLimit,
    webhookUrl,
    webhookSecret,
    webhookAllow: webhookAllow.map((name) => name.trim().toLowerCase()).filter(Boolean),
    maxDeliveriesInFlight,
    webhookTimeoutMs,
    webhookRetries,
    proxy,
    proxyTimeoutMs,
    proxyConnectTimeoutMs,
    proxyInsecure,
    record: record === undefined ? undefined : resolve(record),
    coverageReport: options.coverageReport === undefined ? undefined : resolve(options.coverageReport),
    coverageMin: options.coverageMin,
    recordOverwrite,
    proxyOnly,
    mockOnly,
    proxyFallback,
    store,
    storePrefix,
    sessionTtlMs,
  }
}

/** A session's data in the store lives a day after its last write. */
const DEFAULT_SESSION_TTL_MS = 24 * 60 * 60 * 1000

/** `redis://` or `rediss://`, a host, and a database number if any: checked here, reached at start-up. */
function checkStoreUrl(text: string): void {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw startupErrors.optionBadStore(text, 'it is not a URL')
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:')
    throw startupErrors.optionBadStore(text, `the scheme is ${url.protocol.slice(0, -1)}`)
  if (url.hostname === '') throw startupErrors.optionBadStore(text, 'it names no host')
  if (!/^\/?(\d{1,2})?$/.test(url.pathname)) throw startupErrors.optionBadStore(text, 'the path is a database number')
}

/** The sender's options: a default target that is an http(s) URL, and counts and times in range. */
function checkDeliveryOptions(
  options: Pick<MockOptions, 'webhookUrl' | 'maxDeliveriesInFlight' | 'webhookTimeoutMs' | 'webhookRetries'>,
): void {
  const { webhookUrl, maxDeliveriesInFlight, webhookTimeoutMs, webhookRetries } = options
  if (webhookUrl !== undefined && !isWebUrl(webhookUrl)) throw startupErrors.optionBadWebhookUrl(webhookUrl)
  if (!Number.isSafeInteger(maxDeliveriesInFlight) || maxDeliveriesInFlight! < 1 || maxDeliveriesInFlight! > 10_000)
    throw startupErrors.optionBadDeliveryCount('maxDeliveriesInFlight', 1, 10_000, maxDeliveriesInFlight)
  if (!Number.isSafeInteger(webhookRetries) || webhookRetries! < 0 || webhookRetries! > 10)
    throw startupErrors.optionBadDeliveryCount('webhookRetries', 0, 10, webhookRetries)
  if (!Number.isSafeInteger(webhookTimeoutMs) || webhookTimeoutMs! < 1 || webhookTimeoutMs! > 600_000)
    throw startupErrors.optionBadDeliveryCount('webhookTimeoutMs', 1, 600_000, webhookTimeoutMs)
}

/** `--validate` and `validate` take these three words only. */
function checkValidationMode(mode: string): ValidationMode {
  if (mode !== 'strict' && mode !== 'report' && mode !== 'off') throw startupErrors.optionBadValidate(mode)
  return mode
}

/** `--log-format` and `logFormat` take these two words only. */
function checkLogFormat(format: string): LogFormat {
  if (format !== 'text' && format !== 'json') throw startupErrors.optionBadLogFormat(format)
  return format
}

/** The embedded description comes with the embedded fixtures; any other looks for `fixtures/` beside it. */
function defaultFixtures(specPath: string, { embedded, files }: OptionsPlatform): string {
  if (specPath === embedded.spec) return embedded.fixtures
  const besideSpec = resolve(dirname(specPath), 'fixtures')
  return files.exists(besideSpec) ? besideSpec : ''
}
