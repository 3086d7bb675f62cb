import { spawn } from 'node:child_process';
import { copyFileSync, cpSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runBundleDir } from './support/run-bundle';
import { runDocumentPath } from './support/run-document';
import { copyTemplateDatabase } from './support/template-copy';
import { BUILD_BUNDLE } from './sequencer';

/** Runs a Node script of the repository to its end; what it prints is shown only if it fails. */
function runScript(args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: path.join(__dirname, '..'), env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`node ${args.join(' ')} exited with ${code}:\n${output}`))));
  });
}

/**
 * Creates and migrates this run's template database. Each test file then gets its own copy
 * (test/database-per-file.ts), so files running in parallel never see each other's rows. Meanwhile
 * writes the OpenAPI document every file's conformance checks read (converting every schema costs
 * about a second, once per run rather than once per file) and, when the run's files need it (the
 * sequencer tells), builds the production bundle they start as processes (test/support/run-bundle.ts).
 */
export default async function globalSetup(): Promise<void> {
  // The processes the tests start (the bundles, the CLI, tsx, nested runs) keep V8's compiled code
  // between starts, keyed by each file's contents: a start then compiles little of what it loads.
  process.env.NODE_COMPILE_CACHE ??= path.join(os.tmpdir(), 'worktrack-test-compile-cache');
  // The run migrates and uses its own databases on DATABASE_URL's server, never a direct URL set for another.
  delete process.env.DATABASE_DIRECT_URL;
  if (await reuseOuterRun()) return;
  const url = new URL(process.env.DATABASE_URL ?? 'postgresql://postgres:postgres@127.0.0.1:5432/worktrack');
  url.pathname = `/worktrack_test_${Date.now().toString(36)}_${process.pid}`;
  process.env.WORKTRACK_TEST_TEMPLATE = url.pathname.slice(1);
  await Promise.all([
    runScript(['scripts/prisma.mjs', 'deploy'], { ...process.env, DATABASE_URL: url.toString() }),
    runScript(['--import', 'tsx', 'test/support/write-run-document.ts', runDocumentPath()], process.env),
    process.env[BUILD_BUNDLE] && runScript(['scripts/build.mjs', '--outdir', runBundleDir()], process.env),
  ]);
  process.env.DATABASE_URL = url.toString();
}

/**
 * A run started by a test of a run (test/browser-preflight.test.ts runs `pnpm test` within one)
 * inherits the outer run's template name while the outer run's document is still there: it then
 * copies the outer template, document and bundle (a copy of a database is a file copy) instead of
 * migrating, converting and building again (about 5 s of CPU each time). The copies are its own,
 * named after the outer run's (`<template>_<id>`), so its teardown drops and removes only them, and
 * the outer teardown whatever it left. False when there is no outer run to reuse, or it lacks something.
 */
async function reuseOuterRun(): Promise<boolean> {
  const outer = process.env.WORKTRACK_TEST_TEMPLATE;
  if (!outer?.startsWith('worktrack_test_') || !process.env.DATABASE_URL) return false;
  const [outerDocument, outerBundle] = [runDocumentPath(), runBundleDir()];
  if (!existsSync(outerDocument) || (process.env[BUILD_BUNDLE] && !existsSync(outerBundle))) return false;
  let url: string;
  try {
    url = await copyTemplateDatabase();
  } catch {
    return false;
  }
  process.env.WORKTRACK_TEST_TEMPLATE = new URL(url).pathname.slice(1);
  process.env.DATABASE_URL = url;
  copyFileSync(outerDocument, runDocumentPath());
  if (process.env[BUILD_BUNDLE]) cpSync(outerBundle, runBundleDir(), { recursive: true });
  return true;
}
