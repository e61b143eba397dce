import type { LiveMock } from '../admin/mock-handle.js'
import type { Logger } from '../common/log.js'
import type { SharedStore } from '../engine/shared-store.js'
import { relayAdmin } from '../relay/admin-relay.js'
import { answerRelayed } from '../relay/answer-relayed.js'
import { journalNumbering } from '../relay/merge-reads.js'
import type { FetchHandler } from '../relay/relay-link.js'
import type { RedisStore } from '../redis/open-redis-store.js'

/**
 * With `--store`, this process is one replica of the mock (#32): its admin API answers as the one mock
 * whichever replica a call lands on, writes applied by every replica and reads gathered from them
 * (`redis/replicas.ts`), its journal's ids told apart by its slot and its entries naming it. Resolves
 * once every admin write made before it joined is applied: the handler it gives serves from then.
 * The Redis code is imported here, on first use, as the store's is (`open-store.ts`).
 */
export async function joinReplicasOf(
  store: SharedStore,
  handle: FetchHandler,
  live: () => LiveMock,
  logger: Logger,
): Promise<FetchHandler> {
  const { joinReplicas } = await import('../redis/replicas.js')
  const redisStore = store as RedisStore
  const replica = await joinReplicas(redisStore, (relayed) => answerRelayed(relayed, handle, live()), logger, {
    // Before the log's earlier writes are applied, so before any request is journaled.
    joined: (slot, name) => {
      const { first, step } = journalNumbering(slot)
      live().state.journal.numberEntries(first, step, name)
    },
  })
  redisStore.onClose(replica.close)
  return relayAdmin(replica.link, replica.slot)(handle, live)
}
