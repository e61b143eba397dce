import type { Network } from '../common/network.js'
import { readMultipart } from './node-multipart.js'
import { createUpstreamClient } from './node-upstream.js'

/** The network as Node reaches it: the upstream with undici, multipart bodies with busboy. */
export const nodeNetwork: Network = { upstreamClient: createUpstreamClient, readMultipart }
