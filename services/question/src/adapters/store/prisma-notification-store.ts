import type { PrismaClient } from '../../generated/prisma/client.ts';
import { defaultNotificationSettings, type NotificationSettings, type NotificationStore, type PushTarget, type VapidKeys } from '../../app/notifications.ts';

// The one row of vapid_keys.
const VAPID_ROW = 1;

/** Notification settings, Web Push subscriptions, the VAPID key pair and sends in this service's database. */
export class PrismaNotificationStore implements NotificationStore {
  constructor(private readonly prisma: PrismaClient) {}

  async targets(userId: string): Promise<{ settings: NotificationSettings; pushes: PushTarget[] }> {
    const [row, pushes] = await Promise.all([
      this.prisma.notificationSettings.findUnique({ where: { userId } }),
      this.prisma.pushSubscription.findMany({ where: { userId }, orderBy: { createdAt: 'asc' } }),
    ]);
    const settings = row === null ? defaultNotificationSettings() : { webhookUrl: row.webhookUrl, cards: row.cards, asks: row.asks };
    return { settings, pushes: pushes.map(({ endpoint, p256dh, auth }) => ({ endpoint, p256dh, auth })) };
  }

  async saveSettings(userId: string, settings: NotificationSettings, now: Date): Promise<void> {
    const data = { webhookUrl: settings.webhookUrl, cards: settings.cards, asks: settings.asks, updatedAt: now };
    await this.prisma.notificationSettings.upsert({ where: { userId }, create: { userId, ...data }, update: data });
  }

  async addPush(userId: string, target: PushTarget, now: Date): Promise<void> {
    const data = { userId, p256dh: target.p256dh, auth: target.auth, createdAt: now };
    await this.prisma.pushSubscription.upsert({ where: { endpoint: target.endpoint }, create: { endpoint: target.endpoint, ...data }, update: data });
  }

  async removePush(endpoint: string, userId?: string): Promise<void> {
    await this.prisma.pushSubscription.deleteMany({ where: { endpoint, ...(userId === undefined ? {} : { userId }) } });
  }

  async vapidKeys(make: () => VapidKeys, now: Date): Promise<VapidKeys> {
    const kept = await this.prisma.vapidKeys.findUnique({ where: { id: VAPID_ROW } });
    if (kept !== null) return { publicKey: kept.publicKey, privateKey: kept.privateKey };
    const made = make();
    // Two replicas starting together: the first insert wins and both read it back.
    await this.prisma.$executeRaw`
      INSERT INTO vapid_keys (id, public_key, private_key, created_at) VALUES (${VAPID_ROW}, ${made.publicKey}, ${made.privateKey}, ${now})
      ON CONFLICT (id) DO NOTHING`;
    const row = await this.prisma.vapidKeys.findUniqueOrThrow({ where: { id: VAPID_ROW } });
    return { publicKey: row.publicKey, privateKey: row.privateKey };
  }

  async sentTargets(eventId: string): Promise<Set<string>> {
    const rows = await this.prisma.notificationSend.findMany({ where: { eventId }, select: { target: true } });
    return new Set(rows.map((row) => row.target));
  }

  async markSent(eventId: string, target: string, now: Date): Promise<void> {
    await this.prisma.notificationSend.upsert({ where: { eventId_target: { eventId, target } }, create: { eventId, target, sentAt: now }, update: {} });
  }

  async forgetSends(eventId: string): Promise<void> {
    await this.prisma.notificationSend.deleteMany({ where: { eventId } });
  }
}
