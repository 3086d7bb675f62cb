// `pnpm check:k8s [dir...]`: builds each kustomization (default: infra/k8s's base and overlays) with
// scripts/kustomize.ts and validates every object against the Kubernetes API's schemas
// (kubernetes-models; KEDA's from @kubernetes-models/keda). Offline: the schemas are in the packages.
// and against the services' code (manifestProblems). Exits 1 naming each problem.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { apiEnvSchema, SHUTDOWN_DEADLINE_MS, workerEnvSchema } from '@worktrack/config';
import { containersOf, kustomizeBuild, type K8sObject } from './kustomize';

const root = path.resolve(__dirname, '..');

/** infra/k8s/base and every overlay. */
export function kustomizations(): string[] {
  const overlays = path.join(root, 'infra/k8s/overlays');
  return [path.join(root, 'infra/k8s/base'), ...readdirSync(overlays).map((name) => path.join(overlays, name))];
}

interface Model {
  validate(): void;
}
type ModelClass = new (data: unknown) => Model;

async function modelOf({ apiVersion, kind }: K8sObject): Promise<ModelClass> {
  const module = apiVersion.startsWith('keda.sh/') ? `@kubernetes-models/keda/${apiVersion}/${kind}` : `kubernetes-models/${apiVersion}/${kind}`;
  const exports = (await import(module).catch(() => {
    throw new Error(`no schema for ${apiVersion} ${kind}`);
  })) as Record<string, ModelClass>;
  return exports[kind]!;
}

/** The problems of the objects, one line each: empty when every object is valid. */
export async function schemaProblems(objects: K8sObject[]): Promise<string[]> {
  const problems: string[] = [];
  for (const object of objects) {
    const name = `${object.kind} ${object.metadata?.name}`;
    try {
      const Model = await modelOf(object);
      new Model(object).validate();
    } catch (err) {
      problems.push(`${name}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return problems;
}

type Schema = typeof apiEnvSchema | typeof workerEnvSchema;
const settingsOf = (schema: Schema) => new Set(Object.keys(schema.describe().keys));
const defaultOf = (schema: Schema, key: string) => String((schema.extract(key).describe().flags as { default?: unknown } | undefined)?.default);
/** What each container runs, and the settings it reads. */
const SERVICES: Record<string, { command: string; schema: Schema; port?: { setting: string; host: string } }> = {
  api: { command: 'node dist/api.js', schema: apiEnvSchema, port: { setting: 'PORT', host: 'HOST' } },
  worker: { command: 'node dist/worker.js', schema: workerEnvSchema, port: { setting: 'WORKER_HEALTH_PORT', host: 'WORKER_HEALTH_HOST' } },
  // The migrate command reads DATABASE_DIRECT_URL or DATABASE_URL, settings common to both services.
  migrate: { command: 'node dist/migrate.mjs deploy', schema: workerEnvSchema },
};

interface Probe {
  httpGet: { path: string; port: string | number };
  periodSeconds?: number;
  failureThreshold?: number;
}
interface Container {
  name: string;
  command?: string[];
  ports?: { name?: string; containerPort: number }[];
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  envFrom?: { configMapRef?: { name: string } }[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: { readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean };
}
interface PodSpec {
  terminationGracePeriodSeconds?: number;
  securityContext?: { runAsNonRoot?: boolean };
}

/**
 * What the schemas cannot know: every variable a container gets is a setting its service reads, the
 * probes ask the port the service listens on (on all interfaces) for /healthz and /readyz, a stop
 * outlasts the shutdown deadline, the API drains longer than readiness takes to notice, and every
 * container runs as non-root on a read-only root filesystem with requests and limits.
 */
export function manifestProblems(objects: K8sObject[]): string[] {
  const problems: string[] = [];
  const configMaps = new Map(objects.filter((o) => o.kind === 'ConfigMap').map((o) => [o.metadata.name, (o.data ?? {}) as Record<string, string>]));
  for (const object of objects) {
    const pod = (object.spec as { template?: { spec?: PodSpec } } | undefined)?.template?.spec;
    for (const container of containersOf(object) as unknown as Container[]) {
      const where = `${object.kind} ${object.metadata.name} container ${container.name}`;
      const service = SERVICES[container.name];
      if (!service) {
        problems.push(`${where}: not one of ${Object.keys(SERVICES).join(', ')}`);
        continue;
      }
      if (container.command?.join(' ') !== service.command) problems.push(`${where}: command is not \`${service.command}\``);
      const fromConfig = Object.assign({}, ...(container.envFrom ?? []).map((source) => configMaps.get(source.configMapRef?.name ?? '') ?? {})) as Record<
        string,
        string
      >;
      const env: Record<string, string | undefined> = { ...fromConfig, ...Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value])) };
      const known = settingsOf(service.schema);
      for (const variable of Object.keys(env))
        if (!known.has(variable) && !(variable in fromConfig && anyServiceReads(variable))) problems.push(`${where}: ${variable} is not a setting it reads`);
      for (const variable of Object.keys(fromConfig)) if (!anyServiceReads(variable)) problems.push(`${where}: ${variable} (ConfigMap) is not a setting`);

      if (service.port) {
        const port = Number(env[service.port.setting] ?? defaultOf(service.schema, service.port.setting));
        if (env[service.port.host] !== '0.0.0.0') problems.push(`${where}: ${service.port.host} must be 0.0.0.0, or the probes cannot reach it`);
        const resolve = (p: string | number) => (typeof p === 'number' ? p : container.ports?.find((cp) => cp.name === p)?.containerPort);
        for (const [probe, path] of [
          ['livenessProbe', '/healthz'],
          ['readinessProbe', '/readyz'],
        ] as const) {
          const get = container[probe]?.httpGet;
          if (get?.path !== path || resolve(get.port) !== port) problems.push(`${where}: ${probe} must GET ${path} on port ${port} (${service.port.setting})`);
        }
        const readiness = container.readinessProbe;
        if (container.name === 'api' && readiness) {
          const noticedMs = (readiness.periodSeconds ?? 10) * (readiness.failureThreshold ?? 3) * 1000;
          const drainMs = Number(env.DRAIN_DELAY_MS ?? defaultOf(apiEnvSchema, 'DRAIN_DELAY_MS'));
          if (drainMs < noticedMs) problems.push(`${where}: DRAIN_DELAY_MS ${drainMs} is shorter than readiness takes to notice (${noticedMs} ms)`);
        }
        if ((pod?.terminationGracePeriodSeconds ?? 30) * 1000 <= SHUTDOWN_DEADLINE_MS)
          problems.push(`${where}: terminationGracePeriodSeconds must exceed the ${SHUTDOWN_DEADLINE_MS} ms shutdown deadline`);
      }
      if (pod?.securityContext?.runAsNonRoot !== true) problems.push(`${where}: the pod must run as non-root`);
      if (container.securityContext?.readOnlyRootFilesystem !== true || container.securityContext.allowPrivilegeEscalation !== false)
        problems.push(`${where}: needs a read-only root filesystem and no privilege escalation`);
      for (const kind of ['requests', 'limits'] as const)
        for (const resource of ['cpu', 'memory']) if (!container.resources?.[kind]?.[resource]) problems.push(`${where}: no ${resource} in resources.${kind}`);
    }
  }
  return problems;
}

function anyServiceReads(variable: string): boolean {
  return Object.values(SERVICES).some(({ schema }) => settingsOf(schema).has(variable));
}

async function main(): Promise<void> {
  const dirs = process.argv.length > 2 ? process.argv.slice(2).map((dir) => path.resolve(dir)) : kustomizations();
  let failed = false;
  for (const dir of dirs) {
    const objects = kustomizeBuild(dir);
    const problems = [...(await schemaProblems(objects)), ...manifestProblems(objects)];
    console.log(`${path.relative(root, dir)}: ${objects.length} objects, ${problems.length === 0 ? 'valid' : `${problems.length} invalid`}`);
    for (const problem of problems) console.error(`  ${problem}`);
    failed ||= problems.length > 0;
  }
  if (failed) process.exitCode = 1;
}

if (require.main === module)
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  });
