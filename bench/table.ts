// One markdown table per path: worktrack, its bare baseline, and their ratio, from one run.
import type { CpuUse } from './proc-cpu';

export interface Measured {
  label: string;
  /** Requests or deliveries completed in the window. */
  count: number;
  seconds: number;
  p50Ms?: number;
  p99Ms?: number;
  cpu: CpuUse;
}

const perSecond = (m: Measured) => m.count / m.seconds;
const perItem = (m: Measured) => ({
  node: m.cpu.nodeUs / m.count,
  postgres: m.cpu.postgresUs / m.count,
  redis: m.cpu.redisUs / m.count,
  total: (m.cpu.nodeUs + m.cpu.postgresUs + m.cpu.redisUs) / m.count,
});

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number | undefined) => (n === undefined ? '' : String(Math.round(n * 10) / 10));
const times = (n: number) => `${n.toFixed(2)}x`;

export function printTable(
  title: string,
  unit: string,
  worktrack: Measured,
  baseline: Measured,
  notes: string[] = [],
  ratioLabel = 'worktrack / baseline',
): void {
  const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const line = (m: Measured) => {
    const cpu = perItem(m);
    return row([m.label, int(perSecond(m)), ms(m.p50Ms), ms(m.p99Ms), int(cpu.node), int(cpu.postgres), int(cpu.redis), int(cpu.total)]);
  };
  console.log(`\n### ${title}\n`);
  console.log(row(['', `${unit}/s`, 'p50 ms', 'p99 ms', `Node µs/${unit}`, `Postgres µs/${unit}`, `Redis µs/${unit}`, `CPU µs/${unit}`]));
  console.log(row(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:']));
  console.log(line(worktrack));
  console.log(line(baseline));
  const [w, b] = [perItem(worktrack), perItem(baseline)];
  console.log(
    row([
      ratioLabel,
      times(perSecond(worktrack) / perSecond(baseline)),
      '',
      '',
      times(w.node / b.node),
      b.postgres > 0 ? times(w.postgres / b.postgres) : '',
      '',
      times(w.total / b.total),
    ]),
  );
  for (const note of notes) console.log(`\n${note}`);
}

/** µs per item of another process's work in the same window, for a note under a table. */
export function cpuNote(what: string, cpu: CpuUse, count: number, unit: string): string {
  return `${what}: ${int(cpu.nodeUs / count)} µs Node + ${int(cpu.postgresUs / count)} µs Postgres per ${unit}.`;
}
