// `pnpm build`: bundles each entry point with everything it imports into dist/, so the production
// image runs plain JavaScript with no dev dependencies and no TypeScript runtime. Only the packages
// that OpenTelemetry instruments and those loaded at their first use stay outside the bundles, copied
// into dist/node_modules (below).
// The migrate command also needs Prisma's schema engine, a WebAssembly file it reads at run time:
// it is copied beside the bundles and named by PRISMA_SCHEMA_ENGINE_WASM.
// `node scripts/build.mjs --outdir DIR` builds into DIR instead (the test run builds its own copy).
import { copyFileSync, cpSync, existsSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
const { values: options } = parseArgs({ options: { outdir: { type: 'string', default: path.join(root, 'dist') } } });
const outdir = path.resolve(options.outdir);
const common = { absWorkingDir: root, outdir, bundle: true, platform: 'node', target: 'node24', logLevel: 'warning', external: ['pg-native'] };

// OpenTelemetry's instrumentations patch these packages as Node's require() loads them, which never
// happens to a copy inlined in a bundle: the services require them from dist/node_modules instead.
// (HTTP is Node's own; undici reports through diagnostics_channel, which works from a bundle.)
const INSTRUMENTED = ['pg', 'ioredis'];

// Packages a service loads only when it first needs them (the object store's SDK, the mailer, the
// upload parser), with the package that depends on each: they too stay out of the bundles and are
// shipped beside them. Node holds a bundle's whole source in memory from start, and the heap it reads
// the file into keeps about as much again (docs/performance.md#memory).
const ON_FIRST_USE = {
  '@aws-sdk/client-s3': 'packages/storage',
  '@aws-sdk/lib-storage': 'packages/storage',
  '@aws-sdk/s3-request-presigner': 'packages/storage',
  nodemailer: 'packages/mail',
  multer: 'services/api',
};

// Likewise the OpenTelemetry SDK and its instrumentations, loaded only when traces are asked for
// (packages/telemetry/src/tracing.ts requires ./sdk then): a bundle of their own beside the services'
// (shipped as packages, all their builds and exporters would take 50 MB). Its copy of
// `@opentelemetry/api` and the services' share one global registry.
const TRACING_SDK = 'tracing-sdk.js';
const tracingSdkBesideBundle = {
  name: 'tracing-sdk-beside-bundle',
  setup(build) {
    build.onResolve({ filter: /^\.\/sdk$/ }, ({ importer }) =>
      /[\\/]packages[\\/]telemetry[\\/]src[\\/]tracing\.ts$/.test(importer) ? { path: `./${TRACING_SDK}`, external: true } : undefined,
    );
  },
};

/**
 * The folder of package `name` as Node would resolve it from `fromDir`, whatever its `exports`;
 * none for a package named as one of Node's modules (`buffer`), which require() never loads.
 */
function packageDir(name, fromDir) {
  const found = (createRequire(path.join(fromDir, 'package.json')).resolve.paths(name) ?? [])
    .map((dir) => path.join(dir, name))
    .find((dir) => existsSync(path.join(dir, 'package.json')));
  return found && realpathSync(found);
}

// Prisma's client carries its query compiler (the build prisma/schema.prisma names: 1.7 MB of
// WebAssembly for "small") as a base64 string in a module of its own: in a bundle it would sit in
// the source Node keeps in memory for as long as the process runs, used or not. The bundles read it
// from a file beside them instead, when the client first needs it (an API replica that serves only
// the pool's statements never does).
const QUERY_COMPILER_MODULE = /^@prisma\/client\/runtime\/(query_compiler_\w+_bg\.postgresql)\.wasm-base64\.js$/;
const queryCompilers = new Map(); // file name beside the bundles -> the module it replaces
const queryCompilerBesideBundle = {
  name: 'query-compiler-beside-bundle',
  setup(build) {
    build.onResolve({ filter: QUERY_COMPILER_MODULE }, ({ path: module }) => {
      const file = `${QUERY_COMPILER_MODULE.exec(module)[1]}.wasm`;
      queryCompilers.set(file, module);
      return { path: file, namespace: 'query-compiler' };
    });
    build.onLoad({ filter: /.*/, namespace: 'query-compiler' }, ({ path: file }) => ({
      contents: `module.exports = { get wasm() { return require('node:fs').readFileSync(require('node:path').join(__dirname, '${file}'), 'base64'); } };`,
      loader: 'js',
    }));
  },
};

// BullMQ's index also loads its optional PostgreSQL backend (SQL scripts and migrations, 400 kB of
// source and strings held from start), which the services, on Redis, never use: the bundles leave it out.
const withoutBullmqPostgres = {
  name: 'without-bullmq-postgres',
  setup(build) {
    build.onResolve({ filter: /^\.\/postgres$/ }, ({ importer }) =>
      /[\\/]bullmq[\\/]dist[\\/]cjs[\\/]index\.js$/.test(importer) ? { path: 'bullmq-postgres', namespace: 'left-out' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'left-out' }, () => ({ contents: 'module.exports = {};', loader: 'js' }));
  },
};

/** Copies package `name` and its dependencies, as installed here, into dist/node_modules: flat, nested under `parent` only where two versions meet. */
const shipped = new Map();
function ship(name, fromDir, parent = outdir) {
  const dir = packageDir(name, fromDir);
  if (!dir || shipped.get(name) === dir) return;
  const target = path.join(shipped.has(name) ? parent : outdir, 'node_modules', name);
  if (!shipped.has(name)) shipped.set(name, dir);
  cpSync(dir, target, { recursive: true, dereference: true });
  const { dependencies = {}, optionalDependencies = {} } = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
  for (const dependency of Object.keys({ ...dependencies, ...optionalDependencies })) ship(dependency, dir, target);
}

rmSync(outdir, { recursive: true, force: true });
await build({
  ...common,
  external: [...common.external, ...INSTRUMENTED, ...Object.keys(ON_FIRST_USE)],
  entryPoints: [
    { in: 'services/api/src/main.ts', out: 'api' },
    { in: 'services/worker/src/main.ts', out: 'worker' },
    { in: 'services/api/src/cli.ts', out: 'cli' },
    { in: 'packages/telemetry/src/sdk.ts', out: TRACING_SDK.replace(/\.js$/, '') },
  ],
  format: 'cjs',
  // Node keeps a bundle's source in memory for as long as it runs, as two bytes a character once one
  // character is not ASCII (some dependencies' comments have them): without comments and indentation
  // the API's takes 11 MB where it took 28. Names stay as written, so stack traces still read.
  minifyWhitespace: true,
  // The licence comments (one names its author in UTF-8) go to api.js.LEGAL.txt etc. beside the bundles.
  legalComments: 'external',
  // Some dependencies (the OpenTelemetry SDK's) come as ES modules that read import.meta.url, which a
  // CommonJS bundle has not: it is the bundle's own file's URL.
  define: { 'import.meta.url': '__bundleUrl' },
  banner: { js: "const __bundleUrl = require('node:url').pathToFileURL(__filename).href;" },
  plugins: [queryCompilerBesideBundle, withoutBullmqPostgres, tracingSdkBesideBundle],
});
await build({
  ...common,
  entryPoints: [{ in: 'scripts/prisma.mjs', out: 'migrate' }],
  outExtension: { '.js': '.mjs' },
  format: 'esm',
  // CommonJS dependencies bundled into an ES module still call require() for Node's built-ins.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
});

for (const name of INSTRUMENTED) ship(name, root);
for (const [name, dependent] of Object.entries(ON_FIRST_USE)) ship(name, path.join(root, dependent));

const dbRequire = createRequire(path.join(root, 'packages/db/package.json'));
for (const [file, module] of queryCompilers) writeFileSync(path.join(outdir, file), Buffer.from(dbRequire(module).wasm, 'base64'));
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
console.log(
  `built ${path.relative(root, outdir) || '.'}/: api.js, worker.js, cli.js, ${TRACING_SDK}, migrate.mjs, ${[...queryCompilers.keys()].join(', ')}, schema_engine_bg.wasm, node_modules/ (${[...INSTRUMENTED, ...Object.keys(ON_FIRST_USE)].join(', ')}), bull-board-ui/, swagger-ui/`,
);
