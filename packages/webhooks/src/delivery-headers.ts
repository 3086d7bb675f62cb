import { signBody, standardWebhookSignature } from './signature';

export const DEFAULT_USER_AGENT = 'Worktrack-Webhooks/1.0';

export interface DeliveryHeaderInput {
  /** The subscription's current signing secret. */
  secret: string;
  /** The secret replaced by a rotation; pass it only during the 24 h after the rotation. */
  previousSecret?: string | null;
  deliveryId: string;
  eventType: string;
  /** The exact body that will be sent. */
  body: string;
  /** Signing time; defaults to now. */
  now?: Date;
}

/** Header names exactly as sent. */
export interface DeliveryHeaders extends Record<string, string> {
  'Content-Type': string;
  'User-Agent': string;
  'X-Service-Signature': string;
  'X-Service-Event': string;
  'X-Service-Delivery': string;
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * Every header of one delivery attempt (docs/decisions.md#delivery-requests): the service's own signature
 * header plus the Standard Webhooks headers. Sign again for each attempt so that
 * `webhook-timestamp` stays fresh (receivers reject old timestamps as replays).
 */
export function buildDeliveryHeaders(input: DeliveryHeaderInput): DeliveryHeaders {
  const { secret, previousSecret, deliveryId, eventType, body } = input;
  const timestamp = Math.floor((input.now ?? new Date()).getTime() / 1000);

  const signatures = [standardWebhookSignature(secret, deliveryId, timestamp, body)];
  if (previousSecret && previousSecret !== secret) {
    signatures.push(standardWebhookSignature(previousSecret, deliveryId, timestamp, body));
  }

  return {
    'Content-Type': 'application/json',
    'User-Agent': DEFAULT_USER_AGENT,
    'X-Service-Signature': signBody(secret, body),
    'X-Service-Event': eventType,
    'X-Service-Delivery': deliveryId,
    'webhook-id': deliveryId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatures.join(' '),
  };
}
