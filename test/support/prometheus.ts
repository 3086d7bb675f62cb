export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

// Values are Go floats, whose NaN and Inf are case-insensitive (prom-client writes `Nan` for an empty event-loop lag).
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (-?(?:\d+(?:\.\d+)?(?:e[+-]?\d+)?|[Nn][Aa][Nn]|[+-][Ii][Nn][Ff]))(?: -?\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Parses Prometheus's text exposition format strictly: a line that is neither a comment nor a sample fails. */
export function parsePrometheus(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !/^# (HELP|TYPE) /.test(line))
    .map((line) => {
      const match = SAMPLE.exec(line);
      if (!match) throw new Error(`not a Prometheus sample line: ${line}`);
      const labels = Object.fromEntries([...(match[2] ?? '').matchAll(LABEL)].map((m) => [m[1]!, m[2]!]));
      return { name: match[1]!, labels, value: goFloat(match[3]!) };
    });
}

function goFloat(text: string): number {
  const infinite = /^([+-])inf$/i.exec(text);
  if (infinite) return infinite[1] === '-' ? -Infinity : Infinity;
  return /^nan$/i.test(text) ? Number.NaN : Number(text);
}

/** The value of the first sample of that name whose labels include these, or undefined. */
export function sampleValue(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}
