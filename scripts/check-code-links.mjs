// The second half of `pnpm check:links`: every `docs/....md#anchor`, `README.md#...` or
// `ARCHITECTURE.md#...` that a source file names (in a comment, mostly) resolves inside the
// repository, checked by the same remark-validate-links that checks the docs' own links
// (.remarkrc.mjs). Paths are relative to the repository's root, as in `docs/decisions.md#lists`.
// And no file, source or doc, names a section by number (`§` and a number after a document's name,
// DECISIONS or SPEC): no document here numbers its sections, so such a reference leads nowhere.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';

const root = path.resolve(import.meta.dirname, '..');
const REFERENCE = /(?<![\w./-])((?:[\w-]+\/)*[\w-]+\.md(?:#[\w-]+)?)/g;

const SECTION_NUMBER = /\b(?:[\w-]+\.md|SPEC|DECISIONS)\s*§\s*\d/i;

const texts = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter((file) => file && !/\.(png|jpe?g|gif|ico|wasm)$|(^|\/)pnpm-lock\.yaml$/.test(file));
const files = texts.filter((file) => !file.endsWith('.md'));
const references = [];
const numberedSections = [];
for (const file of texts) {
  let text;
  try {
    text = readFileSync(path.join(root, file), 'utf8');
  } catch {
    continue; // listed, but deleted from the work tree
  }
  text.split('\n').forEach((line, index) => {
    const source = `${file}:${index + 1}`;
    if (SECTION_NUMBER.test(line)) numberedSections.push(`${source}: ${line.trim()}`);
    if (file.endsWith('.md')) return; // the docs' own links are remark's, in the first half
    for (const [, target] of line.matchAll(REFERENCE)) references.push({ source, target });
  });
}
if (numberedSections.length > 0) {
  process.stderr.write(`Numbered sections that no document here has; name the heading's anchor (docs/decisions.md#lists):\n${numberedSections.join('\n')}\n`);
  process.exit(1);
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
