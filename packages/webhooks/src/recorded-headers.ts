/** The response headers a delivery log shows (docs/decisions.md#delivery-log-and-recovery): what the body is, and when the receiver wants a retry. */
export const RECORDED_RESPONSE_HEADERS = ['content-type', 'content-length', 'retry-after'] as const;
