import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { kustomizations, manifestProblems } from '../scripts/check-k8s';
import { containersOf, kustomizeBuild, type K8sObject } from '../scripts/kustomize';
import { exitCode, repoRoot, runEntry } from '@test-support/processes';

/*
 * No cluster runs here: infra/k8s is built by scripts/kustomize.ts and read against the Kubernetes
 * schemas and the services' code (scripts/check-k8s.ts, which .ci/run runs as `pnpm check:k8s`).
 * A manifest broken in the ways that matter fails it.
 */

const production = () => kustomizeBuild(path.join(repoRoot, 'infra/k8s/overlays/production'));
const find = (objects: K8sObject[], kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name)!;
const container = (objects: K8sObject[], deployment: string) => containersOf(find(objects, 'Deployment', deployment))[0] as Record<string, any>;

describe('infra/k8s', () => {
  it.each(kustomizations().map((dir) => [path.relative(repoRoot, dir), dir]))('%s agrees with the code', (_name, dir) => {
    expect(manifestProblems(kustomizeBuild(dir))).toEqual([]);
  });

  // The schemas are ES modules, loaded by the command rather than in Jest.
  it('`pnpm check:k8s` finds every kustomization valid against the Kubernetes and KEDA schemas', async () => {
    const check = runEntry('scripts/check-k8s.ts', [], {});
    expect(await exitCode(check, 60_000)).toBe(0);
    for (const dir of kustomizations()) expect(check.output()).toMatch(new RegExp(`${path.relative(repoRoot, dir)}: \\d+ objects, valid`));
  }, 60_000);

  it('has what a rollout needs: the migrate Job, autoscalers, disruption budgets, the worker scaled on its backlog', () => {
    const objects = production();
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual(
      [
        'ConfigMap/worktrack-config',
        'Job/worktrack-migrate',
        'Deployment/worktrack-api',
        'Service/worktrack-api',
        'HorizontalPodAutoscaler/worktrack-api',
        'PodDisruptionBudget/worktrack-api',
        'Deployment/worktrack-worker',
        'Service/worktrack-worker',
        'PodDisruptionBudget/worktrack-worker',
        'ScaledObject/worktrack-worker',
      ].sort(),
    );
    const triggers = (find(objects, 'ScaledObject', 'worktrack-worker').spec as { triggers: { metadata: { query: string } }[] }).triggers;
    expect(triggers.map((t) => t.metadata.query).join(' ')).toMatch(/webhook_deliveries_due.*outbox_undispatched_events/);
    expect(objects.every((o) => o.metadata.namespace === 'worktrack')).toBe(true);
    expect(container(objects, 'worktrack-api').image).toBe('registry.example.com/worktrack:1.0.0');
  });

  it('finds a probe on a wrong port, an unknown setting, a service listening on loopback, a short grace period', () => {
    const objects = production();
    const api = container(objects, 'worktrack-api');
    api.readinessProbe.httpGet.port = 8080;
    api.env.find((e: { name: string }) => e.name === 'HOST').value = '127.0.0.1';
    api.env.push({ name: 'CURSOR_SECRETS', value: 'x' });
    (find(objects, 'ConfigMap', 'worktrack-config').data as Record<string, string>).WORKER_CONCURENCY = '10';
    ((find(objects, 'Deployment', 'worktrack-worker').spec as any).template.spec as { terminationGracePeriodSeconds: number }).terminationGracePeriodSeconds =
      10;

    expect(manifestProblems(objects)).toEqual(
      expect.arrayContaining([
        'Deployment worktrack-api container api: readinessProbe must GET /readyz on port 3000 (PORT)',
        'Deployment worktrack-api container api: HOST must be 0.0.0.0, or the probes cannot reach it',
        'Deployment worktrack-api container api: CURSOR_SECRETS is not a setting it reads',
        'Deployment worktrack-worker container worker: WORKER_CONCURENCY (ConfigMap) is not a setting',
        'Deployment worktrack-worker container worker: terminationGracePeriodSeconds must exceed the 15000 ms shutdown deadline',
      ]),
    );
  });

  it('`pnpm check:k8s` exits 1 on a manifest the schemas refuse', async () => {
    const copy = mkdtempSync(path.join(tmpdir(), 'wt-k8s-'));
    try {
      cpSync(path.join(repoRoot, 'infra/k8s'), copy, { recursive: true });
      const deployment = path.join(copy, 'base/api-deployment.yaml');
      writeFileSync(deployment, readFileSync(deployment, 'utf8').replace('replicas: 2', 'replicas: two'));
      const check = runEntry('scripts/check-k8s.ts', [path.join(copy, 'base')], {});
      expect(await exitCode(check, 60_000)).toBe(1);
      expect(check.output()).toMatch(/Deployment worktrack-api: .*replicas/);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  }, 60_000);
});
