// The second half of `pnpm check:links`: every `docs/....md#anchor`, `README.md#...` or
// `ARCHITECTURE.md#...` that a source file names (in a comment, mostly) resolves inside the
// repository, checked by the same remark-validate-links that checks the docs' own links
// (.remarkrc.mjs). Paths are relative to the repository's root, as in `docs/decisions.md#lists`.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';

const root = path.resolve(import.meta.dirname, '..');
const REFERENCE = /(?<![\w./-])((?:[\w-]+\/)*[\w-]+\.md(?:#[\w-]+)?)/g;

const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter((file) => file && !/\.(md|png|jpe?g|gif|ico|wasm)$|(^|\/)pnpm-lock\.yaml$/.test(file));
const references = [];
for (const file of files) {
  let text;
  try {
    text = readFileSync(path.join(root, file), 'utf8');
  } catch {
    continue; // listed, but deleted from the work tree
  }
  text.split('\n').forEach((line, index) => {
    for (const [, target] of line.matchAll(REFERENCE)) references.push({ source: `${file}:${index + 1}`, target });
  });
}

// A listing of one link a paragraph, checked as if it were a document at the root: line 2n+1 is reference n.
const listing = references.map(({ source, target }) => `[${source}](${target})`).join('\n\n');
const remark = path.join(root, 'node_modules', '.bin', 'remark');
const check = spawnSync(remark, ['--frail', '--quiet', '--no-stdout', '--file-path', 'code-references.md'], {
  cwd: root,
  input: listing,
  stdio: ['pipe', 'inherit', 'pipe'],
});
if (check.status !== 0) {
  const report = String(check.stderr);
  process.stderr.write(report);
  for (const [, line] of stripVTControlCharacters(report).matchAll(/^(\d+):\d+-/gm)) {
    const reference = references[(Number(line) - 1) / 2];
    if (reference) process.stderr.write(`code-references.md:${line} is ${reference.source}: ${reference.target}\n`);
  }
  process.exit(1);
}
console.log(`${references.length} references to the docs in ${files.length} source files resolve`);
