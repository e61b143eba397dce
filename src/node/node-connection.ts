import type { IncomingHttpHeaders, IncomingMessage } from 'node:http'
import { errors } from '../errors/index.js'
import type { Connection } from '../pipeline/request-data.js'

/** A request's connection under Node's server: its parsed method, target and headers, its body read off Node's request, its socket. */
export class NodeConnection implements Connection {
  readonly method: string
  readonly target: string
  readonly headers: IncomingHttpHeaders
  readonly rawHeaders: readonly string[]

  constructor(private readonly incoming: IncomingMessage) {
    this.method = incoming.method!
    this.target = incoming.url!
    this.headers = incoming.headers
    this.rawHeaders = incoming.rawHeaders
  }

  get closed(): boolean {
    return this.incoming.socket.destroyed
  }

  readBody(limit: number): Promise<Uint8Array> {
    return readIncoming(this.incoming, limit)
  }

  onceClosed(listener: () => void): void {
    this.incoming.socket.once('close', listener)
  }

  offClosed(listener: () => void): void {
    this.incoming.socket.off('close', listener)
  }

  reset(): void {
    this.incoming.socket.resetAndDestroy()
  }

  close(): void {
    this.incoming.socket.destroy()
  }
}

/** The body off Node's request, counted as it streams; past `limit` the reading stops and it rejects with 413. */
function readIncoming(incoming: IncomingMessage, limit: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        cleanup()
        // Stop reading; the server answers 413 and closes the connection.
        incoming.pause()
        reject(errors.payloadTooLarge(limit))
        return
      }
      chunks.push(chunk)
    }
    const onEnd = () => {
      cleanup()
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size))
    }
    const onError = (error: Error) => {
      cleanup()
      reject(error)
    }
    const cleanup = () => {
      incoming.off('data', onData).off('end', onEnd).off('error', onError)
    }
    incoming.on('data', onData).on('end', onEnd).on('error', onError)
  })
}
