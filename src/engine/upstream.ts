import type { CompiledOperation } from './compile-operation.js'
import type { ResolvedOptions } from '../common/config.js'
import type { OperationDescription } from '../openapi/operations.js'
import { startupErrors } from '../errors/index.js'
import type { Network, UpstreamClient, UpstreamSettings } from '../common/network.js'
import { isOperationNamed } from '../internal/operation-name.js'
import { type Recorder, type RecorderSetup, createRecorder } from '../proxy/record-answer.js'

/** The real backend the mock forwards to (`--proxy`), and which operations it answers itself. */
export interface Upstream extends UpstreamSettings {
  /** Operations answered by the mock (`--mock-only`, or left out of `--proxy-only`), by index. */
  mocked: ReadonlySet<number>
  /** An upstream 404 or 501 is replaced by the mock's answer (`--fallback`). */
  fallback: boolean
  /** Keep-alive connections to the upstream, destroyed when the server closes. */
  client: UpstreamClient
  /** Each operation as described, by index: the headers its responses declare are checked on answers. */
  descriptions: readonly OperationDescription[]
  /** Writes conforming answers as fixtures (`--record`); `undefined` without. */
  recorder?: Recorder
}

/** What recording needs of the engine, beyond the options (see `RecorderSetup`). */
export type Recording = Omit<RecorderSetup, 'dir' | 'overwrite'>

/**
 * Proxy mode's upstream, reached through the platform's network, its operations named by operationId
 * or `METHOD /path` checked now; `undefined` without `--proxy`.
 */
export async function upstreamOf(
  network: Network,
  options: ResolvedOptions,
  operations: readonly CompiledOperation[],
  recording: Recording,
): Promise<Upstream | undefined> {
  if (!options.proxy) return undefined
  const find = (flag: string, name: string): number => {
    const found = operations.find((o) => isOperationNamed(o, name))
    if (!found)
      throw startupErrors.optionBadProxyOperation(
        flag,
        name,
        operations.map((o) => o.id),
      )
    return found.index
  }
  const proxied = options.proxyOnly
    ? new Set(options.proxyOnly.map((name) => find('proxyOnly', name)))
    : new Set(operations.map((o) => o.index))
  for (const name of options.mockOnly) proxied.delete(find('mockOnly', name))
  const settings: UpstreamSettings = {
    url: new URL(options.proxy),
    timeoutMs: options.proxyTimeoutMs,
    connectTimeoutMs: options.proxyConnectTimeoutMs,
    insecure: options.proxyInsecure,
  }
  return {
    ...settings,
    mocked: new Set(operations.map((o) => o.index).filter((index) => !proxied.has(index))),
    fallback: options.proxyFallback,
    client: await network.upstreamClient(settings),
    descriptions: recording.descriptions,
    recorder: options.record
      ? createRecorder({ dir: options.record, overwrite: options.recordOverwrite, ...recording })
      : undefined,
  }
}
