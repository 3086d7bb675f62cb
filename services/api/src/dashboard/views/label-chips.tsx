import type { LabelRecord } from '@worktrack/events';

/**
 * A label as a chip with its color. The color is an SVG fill (a presentation attribute), not an
 * inline style, which the pages' Content-Security-Policy refuses.
 */
export function LabelChip({ label }: { label: Pick<LabelRecord, 'name' | 'color'> }) {
  return (
    <span class="chip">
      {label.color && (
        <svg class="swatch" viewBox="0 0 10 10" aria-hidden="true">
          <circle cx="5" cy="5" r="5" fill={label.color} />
        </svg>
      )}
      {label.name}
    </span>
  );
}

/** A task's labels, by id, as chips (an id no longer known is left out). */
export function LabelChips({ ids, labels }: { ids: string[]; labels: Map<string, LabelRecord> }) {
  const known = ids.flatMap((id) => labels.get(id) ?? []);
  if (known.length === 0) return null;
  return (
    <span class="chips">
      {known.map((label) => (
        <LabelChip label={label} />
      ))}
    </span>
  );
}
