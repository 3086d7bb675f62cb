/** docs/decisions.md#events-api: events are kept, and readable, for 30 days. */
const EVENT_RETENTION_MS = 30 * 24 * 3600 * 1000;

/** The oldest instant whose events are still kept. */
export const retainedSince = () => new Date(Date.now() - EVENT_RETENTION_MS);
