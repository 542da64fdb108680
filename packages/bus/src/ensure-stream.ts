import { DiscardPolicy, JetStreamApiCodes, JetStreamApiError, StorageType, type StreamConfig, type StreamInfo } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { DEFAULT_STREAM_MAX_AGE_HOURS, DEFAULT_STREAM_MAX_BYTES } from '@relay/config';
import type { Bus } from './connect-bus.ts';

/** How long JetStream remembers a Nats-Msg-Id; an outbox row republished within it is dropped. */
export const DUPLICATE_WINDOW_MS = 2 * 60_000;

export interface StreamOptions {
  name: string;
  subjects: readonly string[];
  /**
   * Copies JetStream keeps, one per server (NATS_STREAM_REPLICAS): 1 on a single server, 3 on a three-node
   * cluster so a stream survives losing a server. Default 1.
   */
  replicas?: number;
  /** How long a message is kept, consumed or not (NATS_STREAM_MAX_AGE_HOURS). Default: @relay/config's, 7 days. */
  maxAgeMs?: number;
  /** The most the stream may hold, per copy (NATS_STREAM_MAX_BYTES). Default: @relay/config's, 1 GiB. */
  maxBytes?: number;
}

/**
 * Creates the stream (file storage, 2-minute duplicate window, `replicas` copies, its age and size limits) or
 * brings an existing one to that: subjects widened to cover `subjects`, the rest set. Safe when every replica
 * calls it at once: subjects are only ever added, so replicas of two versions during a rollout do not
 * take each other's subjects away.
 *
 * A full stream refuses new messages (discard new) rather than dropping old ones a consumer may not have read:
 * the outbox keeps what it could not publish in PostgreSQL and publishes it once there is room. Messages older
 * than the age limit go whether read or not, so it must outlast any consumer's longest outage.
 */
export async function ensureStream(bus: Bus, options: StreamOptions): Promise<void> {
  const limits = {
    duplicate_window: nanos(DUPLICATE_WINDOW_MS),
    num_replicas: options.replicas ?? 1,
    max_age: nanos(options.maxAgeMs ?? DEFAULT_STREAM_MAX_AGE_HOURS * 3_600_000),
    max_bytes: options.maxBytes ?? DEFAULT_STREAM_MAX_BYTES,
    discard: DiscardPolicy.New,
  } satisfies Partial<StreamConfig>;
  for (let attempt = 1; ; attempt++) {
    const existing = await streamInfo(bus, options.name);
    if (existing === undefined) {
      try {
        await bus.jsm.streams.add({ name: options.name, subjects: [...options.subjects], storage: StorageType.File, ...limits });
        return;
      } catch (error) {
        // Another replica created it between our look and our add: go round once more and update.
        if (attempt < 3) continue;
        throw error;
      }
    }
    const current = existing.config.subjects ?? [];
    const subjects = [...current, ...options.subjects.filter((subject) => !current.includes(subject))];
    const unchanged = (Object.keys(limits) as (keyof typeof limits)[]).every((key) => existing.config[key] === limits[key]);
    if (subjects.length === current.length && unchanged) return;
    // A clustered JetStream moves the stream to the new replica count itself (nats-server 2.9 does).
    await bus.jsm.streams.update(options.name, { subjects, ...limits });
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
