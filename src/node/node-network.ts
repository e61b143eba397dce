import type { Network } from '../common/network.js'

/** The network through `node:http` and undici. */
export const nodeNetwork: Network = {}
