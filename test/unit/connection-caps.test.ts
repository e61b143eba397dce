import { describe, expect, it } from 'vitest'
import {
  ADMIN_CONNECTIONS,
  DESCRIPTOR_HEADROOM,
  MAX_CONNECTIONS,
  connectionCapsOf,
  readDescriptors,
} from '../../src/node/connection-caps.js'

describe('connectionCapsOf (#34)', () => {
  it('leaves the descriptors open at start and the headroom out of a low limit, and keeps some for the admin API', () => {
    const caps = connectionCapsOf({ limit: 160, open: 20 }, { proxy: false })
    expect(caps).toEqual({
      connections: 160 - 20 - DESCRIPTOR_HEADROOM,
      described: 76 - ADMIN_CONNECTIONS,
      descriptorLimit: 160,
    })
  })

  it('keeps a tenth of a larger limit back, and never goes past the ceiling', () => {
    expect(connectionCapsOf({ limit: 1024, open: 20 }, { proxy: false }).connections).toBe(1024 - 20 - 102)
    expect(connectionCapsOf({ limit: 1_048_576, open: 20 }, { proxy: false }).connections).toBe(MAX_CONNECTIONS)
  })

  it('counts each connection twice in proxy mode, where a request may hold one to the upstream', () => {
    expect(connectionCapsOf({ limit: 160, open: 20 }, { proxy: true }).connections).toBe(38)
  })

  it('keeps a quarter at most for the admin API, and a few connections however low the limit', () => {
    expect(connectionCapsOf({ limit: 40, open: 20 }, { proxy: false })).toMatchObject({ connections: 4, described: 3 })
  })

  it('takes the ceiling where the limit cannot be read', () => {
    expect(connectionCapsOf(undefined, { proxy: false })).toEqual({
      connections: MAX_CONNECTIONS,
      described: MAX_CONNECTIONS - ADMIN_CONNECTIONS,
    })
  })

  it.runIf(process.platform === 'linux')('reads the limit and the descriptors open from /proc on Linux', () => {
    const descriptors = readDescriptors()!
    expect(descriptors.limit).toBeGreaterThan(descriptors.open)
    expect(descriptors.open).toBeGreaterThan(2)
  })
})
