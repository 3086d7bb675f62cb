export { signBody, verifyBodySignature, standardSecretKey, standardWebhookSignature } from './signature';
export {
  buildDeliveryHeaders,
  DEFAULT_USER_AGENT,
  type DeliveryHeaderInput,
  type DeliveryHeaders,
} from './delivery-headers';
export {
  isBlockedAddress,
  BlockedAddressError,
  type ResolveHost,
  type ResolvedAddress,
} from './address-guard';
export {
  checkWebhookUrl,
  type CheckWebhookUrlOptions,
  type UrlCheckResult,
  type UrlRejectionReason,
} from './webhook-url';
// The deliverer (and undici under it) is the worker's alone: `@worktrack/webhooks/deliver`.
export { RECORDED_RESPONSE_HEADERS } from './recorded-headers';
export {
  checkCustomHeaders,
  HTTP_TOKEN,
  isReservedHeader,
  maskHeaderValue,
  MAX_CUSTOM_HEADERS,
  MAX_CUSTOM_HEADER_VALUE_BYTES,
  type HeadersCheck,
} from './custom-headers';
