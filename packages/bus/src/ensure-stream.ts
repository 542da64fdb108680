import { JetStreamApiCodes, JetStreamApiError, StorageType, type StreamInfo } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import type { Bus } from './connect-bus.ts';

/** How long JetStream remembers a Nats-Msg-Id; an outbox row republished within it is dropped. */
export const DUPLICATE_WINDOW_MS = 2 * 60_000;

export interface StreamOptions {
  name: string;
  subjects: string[];
  /**
   * Copies JetStream keeps, one per server (NATS_STREAM_REPLICAS): 1 on a single server, 3 on a three-node
   * cluster so a stream survives losing a server. Default 1.
   */
  replicas?: number;
}

/**
 * Creates the stream (file storage, 2-minute duplicate window, `replicas` copies) or brings an existing
 * one to that: subjects widened to cover `subjects`, the replica count changed. Safe when every replica
 * calls it at once: subjects are only ever added, so replicas of two versions during a rollout do not
 * take each other's subjects away.
 */
export async function ensureStream(bus: Bus, options: StreamOptions): Promise<void> {
  const duplicateWindow = nanos(DUPLICATE_WINDOW_MS);
  const replicas = options.replicas ?? 1;
  for (let attempt = 1; ; attempt++) {
    const existing = await streamInfo(bus, options.name);
    if (existing === undefined) {
      try {
        await bus.jsm.streams.add({
          name: options.name,
          subjects: options.subjects,
          storage: StorageType.File,
          duplicate_window: duplicateWindow,
          num_replicas: replicas,
        });
        return;
      } catch (error) {
        // Another replica created it between our look and our add: go round once more and update.
        if (attempt < 3) continue;
        throw error;
      }
    }
    const current = existing.config.subjects ?? [];
    const subjects = [...current, ...options.subjects.filter((subject) => !current.includes(subject))];
    if (subjects.length === current.length && existing.config.duplicate_window === duplicateWindow && existing.config.num_replicas === replicas) return;
    // A clustered JetStream moves the stream to the new replica count itself (nats-server 2.9 does).
    await bus.jsm.streams.update(options.name, { subjects, duplicate_window: duplicateWindow, num_replicas: replicas });
    return;
  }
}

async function streamInfo(bus: Bus, name: string): Promise<StreamInfo | undefined> {
  try {
    return await bus.jsm.streams.info(name);
  } catch (error) {
    if (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound) return undefined;
    throw error;
  }
}
