import type { RedisClient } from '@worktrack/queue';
import type { Logger } from '@worktrack/config';
import type { CachedKey, KeyCache } from './auth';

/**
 * Tells every API replica, over Redis pub/sub, that an organization's keys or memberships changed
 * (a key revoked, a member removed or given another role), so that each forgets what its key cache
 * holds of that organization. A message lost while a replica's subscription is down costs at most
 * the cache's lifetime there.
 */
export class KeyRevocations {
  private readonly channel: string;
  private readonly listeners: ((organizationId: string) => void)[] = [];
  /** Resolves once this replica listens. */
  readonly listening: Promise<void>;

  constructor(
    private readonly cache: KeyCache<CachedKey>,
    private readonly publisher: RedisClient,
    subscriber: RedisClient,
    prefix: string,
    private readonly logger: Logger,
  ) {
    this.channel = `${prefix}:key-revocations`;
    subscriber.on('message', (channel: string, organizationId: string) => {
      if (channel === this.channel) this.changed(organizationId);
    });
    this.listening = subscriber.subscribe(this.channel).then(
      () => undefined,
      (err: unknown) => logger.warn({ err }, 'key revocations not received; cached keys expire on their own'),
    );
  }

  /** Also tells `listener` of each organization whose keys changed, here or on another replica (open event streams look again at their key). */
  onChange(listener: (organizationId: string) => void): void {
    this.listeners.push(listener);
  }

  private changed(organizationId: string): void {
    this.cache.invalidate(organizationId);
    for (const listener of this.listeners) listener(organizationId);
  }

  /** Once the change committed: forgotten here at once, on the other replicas as the message arrives. */
  announce(organizationId: string): void {
    this.changed(organizationId);
    this.publisher.publish(this.channel, organizationId).catch((err: unknown) => {
      this.logger.warn({ err, organizationId }, 'key revocation not announced; other replicas forget the keys as their cache expires');
    });
  }
}
