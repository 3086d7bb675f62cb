// `kustomize build` for what infra/k8s uses, in a few lines: no kustomize or kubectl binary installs
// from the npm registry or Debian. Reads a kustomization.yaml and returns its objects: resources
// (files, and directories with a kustomization), components, `labels` (metadata only), `namespace`,
// `images` (newName/newTag) and strategic-merge `patches` (maps merged, lists of named items merged
// by name). Anything else in a kustomization is refused, so the files cannot use what this ignores.
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

interface Kustomization {
  apiVersion: string;
  kind: 'Kustomization' | 'Component';
  resources?: string[];
  components?: string[];
  namespace?: string;
  labels?: { pairs: Record<string, string> }[];
  images?: { name: string; newName?: string; newTag?: string }[];
  patches?: { path: string }[];
}

const UNDERSTOOD = new Set(['apiVersion', 'kind', 'resources', 'components', 'namespace', 'labels', 'images', 'patches']);

function readYaml(file: string): unknown[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).map((doc) => {
    if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0]!.message}`);
    return doc.toJS();
  });
}

/** The objects `kustomize build dir` would print, in the order it reads them. */
export function kustomizeBuild(dir: string): K8sObject[] {
  const [kustomization] = readYaml(path.join(dir, 'kustomization.yaml')) as [Kustomization];
  const unknown = Object.keys(kustomization).filter((field) => !UNDERSTOOD.has(field));
  if (unknown.length > 0) throw new Error(`${dir}/kustomization.yaml: ${unknown.join(', ')} not supported by scripts/kustomize.ts`);

  const objects: K8sObject[] = [];
  for (const entry of [...(kustomization.resources ?? []), ...(kustomization.components ?? [])]) {
    const target = path.join(dir, entry);
    objects.push(...(statSync(target).isDirectory() ? kustomizeBuild(target) : (readYaml(target) as K8sObject[])));
  }
  for (const { path: patchFile } of kustomization.patches ?? []) {
    for (const patch of readYaml(path.join(dir, patchFile)) as K8sObject[]) {
      const target = objects.find((o) => o.kind === patch.kind && o.metadata.name === patch.metadata.name);
      if (!target) throw new Error(`${dir}/${patchFile}: no ${patch.kind} ${patch.metadata.name} to patch`);
      objects[objects.indexOf(target)] = merge(target, patch) as K8sObject;
    }
  }
  for (const object of objects) {
    for (const { pairs } of kustomization.labels ?? []) object.metadata.labels = { ...object.metadata.labels, ...pairs };
    if (kustomization.namespace) object.metadata.namespace = kustomization.namespace;
    for (const container of containersOf(object)) {
      const [name, tag] = container.image.split(':');
      const image = kustomization.images?.find((i) => i.name === name);
      if (image) container.image = `${image.newName ?? name}:${image.newTag ?? tag}`;
    }
  }
  return objects;
}

/** The containers of a Deployment's or a Job's pod template. */
export function containersOf(object: K8sObject): { name: string; image: string; [field: string]: unknown }[] {
  const template = (object.spec as { template?: { spec?: { containers?: { name: string; image: string }[] } } } | undefined)?.template;
  return template?.spec?.containers ?? [];
}

const isMap = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isNamedList = (value: unknown): value is { name: string }[] =>
  Array.isArray(value) && value.every((item) => isMap(item) && typeof item.name === 'string');

function merge(base: unknown, patch: unknown): unknown {
  if (isMap(base) && isMap(patch)) {
    const merged = { ...base };
    for (const [key, value] of Object.entries(patch)) merged[key] = key in base ? merge(base[key], value) : value;
    return merged;
  }
  if (isNamedList(base) && isNamedList(patch)) {
    const merged = base.map((item) => {
      const patched = patch.find((p) => p.name === item.name);
      return patched ? merge(item, patched) : item;
    });
    return [...merged, ...patch.filter((p) => !base.some((item) => item.name === p.name))];
  }
  return patch;
}
