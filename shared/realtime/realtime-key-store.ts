import type { RealtimeKeySet } from './realtime-key-set.ts';

/** Where a stage keeps its realtime signing keys. */
export interface RealtimeKeyStore {
  /** The current key set; a store holding none yet makes one first. */
  load(): Promise<RealtimeKeySet>;
  /** Replaces the key set: how a rotation lands. */
  save(set: RealtimeKeySet): Promise<void>;
}
