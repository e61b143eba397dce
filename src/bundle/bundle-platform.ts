import { hmac } from '@noble/hashes/hmac.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex } from '@noble/hashes/utils.js'
import type { Network, Part } from '../common/network.js'
import type { Platform, PlatformCrypto } from '../common/platform.js'
import { startupErrors } from '../errors/index.js'
import { BUNDLE_ROOT, bundleFiles } from './bundle-files.js'
import type { MockBundle } from './mock-bundle.js'
import { resolve } from 'pathe'

/**
 * A platform with no Node (#33), for a browser or a service worker: the files of a bundle, hashing
 * in JavaScript (Web Crypto's digest is asynchronous only, and the core's hashing is not), multipart
 * bodies read by the fetch API, no upstream client and no state file; json-schema-faker loaded on demand.
 */
export function bundlePlatform(bundle: MockBundle, where = 'a browser'): Platform {
  return {
    files: bundleFiles(bundle),
    crypto: webCrypto,
    network: fetchNetwork(where),
    stateFile: {
      read: () => Promise.reject(startupErrors.needsNode('stateFile', where)),
      createWriter: () => {
        throw startupErrors.needsNode('stateFile', where)
      },
    },
    embedded: {
      spec: resolve(BUNDLE_ROOT, bundle.spec),
      fixtures: bundle.fixtures === '' ? '' : resolve(BUNDLE_ROOT, bundle.fixtures),
    },
    loadsOnDemand: true,
  }
}

const webCrypto: PlatformCrypto = {
  sha256: (data) => sha256(typeof data === 'string' ? new TextEncoder().encode(data) : data),
  hmacSha256Hex: (secret, data) =>
    bytesToHex(
      hmac(sha256, new TextEncoder().encode(secret), typeof data === 'string' ? new TextEncoder().encode(data) : data),
    ),
  equalDigests(a, b) {
    // Every byte compared, whatever the first difference: the time says nothing of where it is.
    let difference = a.length ^ b.length
    for (let i = 0; i < a.length; i++) difference |= a[i]! ^ (b[i] ?? 0)
    return difference === 0
  },
}

function fetchNetwork(where: string): Network {
  return {
    upstreamClient: () => Promise.reject(startupErrors.needsNode('proxy', where)),
    readMultipart,
  }
}

/**
 * A `multipart/form-data` body read as the fetch API reads one (`Response.formData()`), in the shape
 * busboy gives in Node. A part without a file name is a field, its text: the fetch API keeps no media
 * type for it, so it reads as `text/plain`, where busboy keeps the one the part declares.
 */
async function readMultipart(
  bytes: Uint8Array,
  contentType: string,
  maxParts: number,
): Promise<Part[] | { problem: string }> {
  let form: FormData
  try {
    form = await new Response(bytes, { headers: { 'content-type': contentType } }).formData()
  } catch (error) {
    return { problem: `is not valid multipart/form-data (${(error as Error).message})` }
  }
  const parts: Part[] = []
  for (const [name, value] of form) {
    if (parts.length === maxParts) return { problem: `has more than ${maxParts} parts` }
    if (typeof value === 'string') parts.push({ name, mimeType: 'text/plain', text: value })
    else
      parts.push({
        name,
        mimeType: (value.type.split(';')[0] ?? '').trim().toLowerCase() || 'text/plain',
        bytes: new Uint8Array(await value.arrayBuffer()),
      })
  }
  return parts
}
