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
export {
  WebhookDeliverer,
  DEFAULT_MAX_RESPONSE_BYTES,
  RECORDED_RESPONSE_HEADERS,
  type DeliveryError,
  type DeliveryRequest,
  type DeliveryResult,
  type WebhookDelivererOptions,
} from './deliver';
export {
  checkCustomHeaders,
  HTTP_TOKEN,
  isReservedHeader,
  maskHeaderValue,
  MAX_CUSTOM_HEADERS,
  MAX_CUSTOM_HEADER_VALUE_BYTES,
  type HeadersCheck,
} from './custom-headers';
