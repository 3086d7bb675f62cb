// `node scripts/slowest-tests.mjs <jest --json output> [count]`: the slowest test files of a run, as a Markdown table.
import { readFileSync } from 'node:fs';
import path from 'node:path';

const [file, count = '10'] = process.argv.slice(2);
if (!file) {
  console.error('usage: node scripts/slowest-tests.mjs <file written by pnpm test --json --outputFile=FILE> [count]');
  process.exit(2);
}
const run = JSON.parse(readFileSync(file, 'utf8'));
const files = run.testResults
  .map((result) => ({
    name: path.relative(process.cwd(), result.name),
    seconds: (result.endTime - result.startTime) / 1000,
    tests: result.assertionResults.length,
  }))
  .sort((a, b) => b.seconds - a.seconds);
const wall = (Math.max(...run.testResults.map((r) => r.endTime)) - run.startTime) / 1000;
console.log(
  `${run.numTotalTestSuites} files, ${run.numTotalTests} tests, ${run.numFailedTests} failed, ${wall.toFixed(0)} s from start to the last file's end\n`,
);
console.log('| file | tests | s |\n|---|---:|---:|');
for (const { name, seconds, tests } of files.slice(0, Number(count))) console.log(`| \`${name}\` | ${tests} | ${seconds.toFixed(1)} |`);
