/** ISO 8601 UTC with milliseconds, or null. */
export const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);
