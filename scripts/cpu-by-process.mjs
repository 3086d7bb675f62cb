// `node scripts/cpu-by-process.mjs -- <command...>`: runs the command, then prints how busy the machine
// was meanwhile and the CPU time of every process seen, by kind (Jest workers, Chromium, Postgres,
// Redis, the bundles the tests start, ...), as a Markdown table. Linux only: it samples /proc twice a
// second, so a process that lives less than half a second may be missed.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const separator = process.argv.indexOf('--');
const command = separator === -1 ? [] : process.argv.slice(separator + 1);
if (command.length === 0) {
  console.error('usage: node scripts/cpu-by-process.mjs -- <command...>   e.g. -- pnpm test');
  process.exit(2);
}

const TICKS_PER_SECOND = 100;
const KINDS = [
  ['jest worker', /jest-worker|processChild/],
  ['jest', /jest\.js/],
  ['chromium', /chrom/],
  ['postgres', /^postgres|postgresql\/\d+\/bin/],
  ['redis', /redis-(server|sentinel)/],
  ['worker bundle', /worker\.js/],
  ['api bundle', /api\.js/],
  ['cli bundle', /cli\.js/],
  ['tsx', /tsx/],
  ['pgbouncer, haproxy', /pgbouncer|haproxy/],
];
const kindOf = (cmdline) => KINDS.find(([, pattern]) => pattern.test(cmdline))?.[0] ?? (cmdline.split(' ')[0].split('/').pop() || 'kernel');

/** Busy and total jiffies of the machine, from the first line of /proc/stat. */
function machineTicks() {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
  const total = fields.slice(0, 8).reduce((sum, n) => sum + n, 0);
  return { busy: total - fields[3] - fields[4], total };
}

/** Each process by pid and start time: its kind, the CPU it has used so far, and before the command. */
const processes = new Map();
let commandStarted = false;
function sample() {
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const key = `${pid}@${fields[19]}`;
      const ticks = Number(fields[11]) + Number(fields[12]);
      const known = processes.get(key);
      if (known) known.ticks = ticks;
      else {
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
        processes.set(key, { kind: kindOf(cmdline), ticks, since: commandStarted ? 0 : ticks });
      }
    } catch {
      // Gone between the listing and the read.
    }
  }
}

// What ran before the command counts from now on; what starts after it, from its start.
sample();
commandStarted = true;
const before = machineTicks();
const started = Date.now();
const timer = setInterval(sample, 500);
const child = spawn(command[0], command.slice(1), { stdio: 'inherit' });
const [code] = await new Promise((resolve) => child.on('exit', (...args) => resolve(args)));
clearInterval(timer);
sample();
const after = machineTicks();

const byKind = new Map();
for (const { kind, ticks, since } of processes.values()) {
  const entry = byKind.get(kind) ?? { seconds: 0, count: 0 };
  entry.seconds += (ticks - since) / TICKS_PER_SECOND;
  entry.count += 1;
  byKind.set(kind, entry);
}
const busy = (100 * (after.busy - before.busy)) / (after.total - before.total);
console.log(`\n${((Date.now() - started) / 1000).toFixed(0)} s of wall time, the machine ${busy.toFixed(0)}% busy; exit code ${code}\n`);
console.log('| processes | count | CPU s |\n|---|---:|---:|');
for (const [kind, { seconds, count }] of [...byKind].sort((a, b) => b[1].seconds - a[1].seconds).slice(0, 12)) {
  if (seconds >= 0.5) console.log(`| ${kind} | ${count} | ${seconds.toFixed(1)} |`);
}
process.exitCode = code ?? 1;
