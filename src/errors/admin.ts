import { MockError, type Violation } from './mock-error.js'

const invalid = (message: string) => new MockError(400, 'invalid_admin_request', message)
const forbidden = (message: string) => new MockError(403, 'admin_forbidden', message)

/** Requests to the admin API (`/__mock`) it does not take: a body, a filter or a page it cannot read (400), or a caller it does not answer (403, #12). */
export const adminErrors = {
  adminBodyNotObject: () => invalid('The body must be a JSON object.'),
  adminBodyNotScenario: () => invalid('The body must be {"name": "<scenario>"}, with an optional "session".'),
  adminSessionNotString: () => invalid('The "session" of the body must be a string.'),
  unknownWebhook: (name: string, known: readonly string[]) =>
    new MockError(
      404,
      'invalid_admin_request',
      `The description declares no webhook "${name}"; it declares ${known.length ? known.map((n) => `"${n}"`).join(', ') : 'none (webhooks are an OpenAPI 3.1 feature)'}.`,
    ),
  webhookNameMissing: (known: readonly string[]) =>
    invalid(
      `The body must be {"name": "<webhook>", "to": "<URL>"}, with an optional "body"; the webhooks: ${known.join(', ') || 'none'}.`,
    ),
  webhookBadTarget: (to: unknown) =>
    invalid(`A webhook's target must be an http: or https: URL, got ${JSON.stringify(to)}.`),
  badDeliveryFilter: (name: string, values: readonly string[]) =>
    invalid(`The "${name}" filter takes ${values.join(', ')}.`),
  webhookWithoutTarget: (name: string) =>
    invalid(
      `The webhook "${name}" has nowhere to go: give "to" (an http: or https: URL), set the session's target (PUT /__mock/webhooks/targets), or start the mock with --webhook-url.`,
    ),
  webhookBodyInvalid: (name: string, violations: readonly Violation[]) =>
    new MockError(
      400,
      'invalid_admin_request',
      `The body given for the webhook "${name}" breaks its schema: ${violations.map((v) => `${v.path} ${v.message}`).join('; ')}.`,
      { details: violations },
    ),
  webhookBodyUnmade: (name: string, violations: readonly Violation[]) =>
    new MockError(
      500,
      'generation_failed',
      `No body the mock can make meets the schema of the webhook "${name}": ${violations.map((v) => `${v.path} ${v.message}`).join('; ')}. Give one with "body".`,
      { details: violations },
    ),
  badStub: (message: string) => invalid(`The stub is not taken: ${message}`),
  badVerifyCheck: (where: string, message: string) =>
    invalid(`The verification is not taken: ${where}: ${message.replace(/\.$/, '')}.`),
  tooManyStubs: (count: number, bytes: number) =>
    new MockError(
      409,
      'invalid_admin_request',
      `The mock holds ${count} stubs (or ${bytes / 1024 / 1024} MiB of them) at most: remove some (DELETE /__mock/stubs/{id}) first.`,
    ),
  stubNotFound: (id: string) =>
    new MockError(
      404,
      'invalid_admin_request',
      `There is no stub ${JSON.stringify(id)}; GET /__mock/stubs lists them.`,
    ),
  journalEntryNotFound: (id: string) =>
    new MockError(
      404,
      'invalid_admin_request',
      `The journal holds no entry ${JSON.stringify(id)}: it never had it, or has let it go (--journal-size, --journal-bytes).`,
    ),
  adminSessionTooLong: (maxBytes: number, bytes: number) =>
    invalid(`A session name is at most ${maxBytes} bytes long (this one has ${bytes}).`),
  unknownJournalFilter: (name: string, known: readonly string[]) =>
    invalid(`Unknown filter "${name}"; known: ${known.join(', ')}.`),
  badStatusFilter: (text: string) =>
    invalid(`The "status" filter takes an HTTP status from 100 to 599 or a class such as 4xx, got "${text}".`),
  badBooleanFilter: (name: string, text: string) => invalid(`The "${name}" filter takes true or false, got "${text}".`),
  badSinceFilter: (text: string) =>
    invalid(
      `The "since" filter takes an ISO 8601 time (2025-01-01T12:00:00Z) or milliseconds since the epoch, got "${text}".`,
    ),
  badPageLimit: (max: number, text: string | undefined) =>
    invalid(`"limit" must be a whole number from 1 to ${max}, got "${text}".`),
  badPageCursor: (text: string) => invalid(`"cursor" must be the "next" of a previous page, got "${text}".`),
  adminBadStreamView: (view: string) => invalid(`"view" must be "entries" (the default) or "summary", got "${view}".`),
  adminBadEventId: (text: string) =>
    invalid(`"Last-Event-ID" (or "after") must be the id of a journal entry, a whole number, got "${text}".`),
  adminHostNotLoopback: (host: string, hostName: string) =>
    forbidden(
      `The admin API of a mock on ${host} answers only loopback host names; "${hostName}" is not one (allow it with --allowed-hosts).`,
    ),
  adminOriginRefused: (origin: string) =>
    forbidden(
      `The admin API does not change state for a page of another site (Origin ${origin}); allow it with --allowed-hosts.`,
    ),
  /** `POST /__mock/coverage/report` on a mock started without a folder to write to (#29). */
  coverageReportNotSet: () =>
    new MockError(
      409,
      'invalid_admin_request',
      'No coverage report folder is set: start the mock with --coverage-report <dir> (or the coverageReport option).',
    ),
  adminBodyNotJson: (contentType: string) =>
    forbidden(`From a browser, the admin API takes JSON bodies only, not ${contentType}.`),
  adminPreflightRefused: (origin: string) =>
    forbidden(
      `The admin API answers pages of the mock's own host, of loopback names and of --allowed-hosts only; Origin ${origin} is none of these.`,
    ),
  /** More journal streams open than the mock keeps (`GET /__mock/requests/stream`): each holds a queue and a connection. */
  adminTooManyStreams: (max: number) =>
    new MockError(
      503,
      'too_many_streams',
      `The mock already sends the journal to ${max} streams, as many as it keeps open; close one (a dashboard tab) and retry.`,
      { headers: { 'retry-after': '5' } },
    ),
}
