// `pnpm build`: bundles each entry point with everything it imports into dist/, so the production
// image runs plain JavaScript with no node_modules, no dev dependencies and no TypeScript runtime.
// The migrate command also needs Prisma's schema engine, a WebAssembly file it reads at run time:
// it is copied beside the bundles and named by PRISMA_SCHEMA_ENGINE_WASM.
// `node scripts/build.mjs --outdir DIR` builds into DIR instead (the test run builds its own copy).
import { copyFileSync, cpSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
const { values: options } = parseArgs({ options: { outdir: { type: 'string', default: path.join(root, 'dist') } } });
const outdir = path.resolve(options.outdir);
const common = { absWorkingDir: root, outdir, bundle: true, platform: 'node', target: 'node24', logLevel: 'warning', external: ['pg-native'] };

rmSync(outdir, { recursive: true, force: true });
await build({
  ...common,
  entryPoints: [
    { in: 'services/api/src/main.ts', out: 'api' },
    { in: 'services/worker/src/main.ts', out: 'worker' },
    { in: 'services/api/src/cli.ts', out: 'cli' },
  ],
  format: 'cjs',
  // Some dependencies (the OpenTelemetry SDK's) come as ES modules that read import.meta.url, which a
  // CommonJS bundle has not: it is the bundle's own file's URL.
  define: { 'import.meta.url': '__bundleUrl' },
  banner: { js: "const __bundleUrl = require('node:url').pathToFileURL(__filename).href;" },
});
await build({
  ...common,
  entryPoints: [{ in: 'scripts/prisma.mjs', out: 'migrate' }],
  outExtension: { '.js': '.mjs' },
  format: 'esm',
  // CommonJS dependencies bundled into an ES module still call require() for Node's built-ins.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
});

const prismaDir = path.dirname(createRequire(import.meta.url).resolve('prisma/package.json'));
copyFileSync(path.join(prismaDir, 'build/schema_engine_bg.wasm'), path.join(outdir, 'schema_engine_bg.wasm'));
// The dashboard's stylesheet and script: the API serves them from beside its bundle.
cpSync(path.join(root, 'services/api/src/dashboard/assets'), path.join(outdir, 'dashboard-assets'), { recursive: true });
// Bull Board serves its page and assets from files; the worker looks for them beside its bundle.
const workerRequire = createRequire(path.join(root, 'services/worker/package.json'));
cpSync(path.join(path.dirname(workerRequire.resolve('@bull-board/ui/package.json')), 'dist'), path.join(outdir, 'bull-board-ui/dist'), { recursive: true });
// Likewise Swagger UI's assets, which the API serves at /docs.
const apiRequire = createRequire(path.join(root, 'services/api/package.json'));
cpSync(path.dirname(apiRequire.resolve('swagger-ui-dist/package.json')), path.join(outdir, 'swagger-ui'), { recursive: true });
console.log(`built ${path.relative(root, outdir) || '.'}/: api.js, worker.js, cli.js, migrate.mjs, schema_engine_bg.wasm, bull-board-ui/, swagger-ui/`);
