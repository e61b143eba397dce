import type { Network } from '../common/network.js'
import { readMultipart } from './node-multipart.js'

/** The network as Node reaches it: multipart bodies with busboy. */
export const nodeNetwork: Network = { readMultipart }
