import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Platform } from '../common/platform.js'
import { convertSwagger2Obj } from './convert-swagger2-obj.js'
import { nodeFiles } from './node-files.js'
import { nodeNetwork } from './node-network.js'
import { readStateFile } from './state-file.js'
import { createStateWriter } from './state-writer.js'

/** The package root: where the embedded `openapi.yaml` and `fixtures/` live (two levels above this file, in `src/node/` or `dist/node/`). */
const packageRoot = fileURLToPath(new URL('../..', import.meta.url))

/** Node's platform: the file system, `node:crypto` (native, synchronous), the network through undici, and the state file. */
export const nodePlatform: Platform = {
  files: nodeFiles,
  crypto: {
    sha256: (data) => createHash('sha256').update(data).digest(),
    hmacSha256Hex: (secret, data) => createHmac('sha256', secret).update(data).digest('hex'),
    equalDigests: (a, b) => timingSafeEqual(a, b),
  },
  network: nodeNetwork,
  stateFile: { read: readStateFile, createWriter: createStateWriter },
  embedded: { spec: resolve(packageRoot, 'openapi.yaml'), fixtures: resolve(packageRoot, 'fixtures') },
  swagger2: convertSwagger2Obj,
  cpuTime() {
    const { user, system } = process.cpuUsage()
    return (user + system) / 1000
  },
}
