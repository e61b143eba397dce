import { MockError, type Violation } from './mock-error.js'

const failed = (message: string, details?: readonly Violation[]) =>
  new MockError(502, 'upstream_failed', message, details ? { details } : {})

/** Proxy mode (`--proxy`): what went wrong with the upstream, named with it; never the client's fault. */
export const proxyErrors = {
  upstreamUnreachable: (upstream: string, cause: string) =>
    failed(`The upstream ${upstream} could not be reached (${cause}).`),
  upstreamTimeout: (upstream: string, ms: number, inBody = false) =>
    new MockError(
      504,
      'upstream_timeout',
      inBody
        ? `The upstream ${upstream} stopped sending its answer for ${ms} ms (--proxy-timeout).`
        : `The upstream ${upstream} did not answer within ${ms} ms (--proxy-timeout).`,
    ),
  upstreamConnectTimeout: (upstream: string, ms: number) =>
    new MockError(
      504,
      'upstream_timeout',
      `The upstream ${upstream} could not be connected to within ${ms} ms (--proxy-connect-timeout).`,
    ),
  upstreamTooLarge: (upstream: string, bytes: number) =>
    failed(
      `The upstream ${upstream} answered more than ${bytes / 1024 / 1024} MiB, which the proxy does not hold to check.`,
    ),
  upstreamItemTooLong: (upstream: string, bytes: number) =>
    failed(
      `The upstream ${upstream} streamed an item longer than ${bytes / 1024 / 1024} MiB, which the proxy does not hold to check.`,
    ),
  upstreamBrokeContract: (upstream: string, operationId: string, violations: readonly Violation[]) =>
    failed(
      `The upstream ${upstream} answered ${operationId} against the description (${violations.length} problem${violations.length === 1 ? '' : 's'}): ${violations.map((v) => `${v.path} ${v.message}`).join('; ')}.`,
      violations,
    ),
}
