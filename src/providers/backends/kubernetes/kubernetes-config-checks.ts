import { configError } from '../../../core/config-merge.js';
import { describeValue } from '../../../core/describe-value.js';

/** Requests or limits: cpu, memory, ephemeral-storage as Kubernetes quantities. */
export type ResourceList = Readonly<Partial<Record<'cpu' | 'memory' | 'ephemeral-storage', string>>>;
export interface PodResources {
  readonly requests?: ResourceList;
  readonly limits?: ResourceList;
}

export interface Toleration {
  readonly key?: string;
  readonly operator?: 'Exists' | 'Equal';
  readonly value?: string;
  readonly effect?: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
  readonly tolerationSeconds?: number;
}

/** `hostPath`: the workspace directory of the node; a claim: a PersistentVolumeClaim (optionally a sub-path of it). */
export type WorkspaceVolume = 'hostPath' | { readonly claim: string; readonly subPath?: string };

const RESOURCE_NAMES = ['cpu', 'memory', 'ephemeral-storage'];
/** A Kubernetes quantity: a decimal number with an optional SI, binary or milli suffix. */
const QUANTITY = /^\d+(\.\d+)?(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$/;
/** `prefix/name` or `name`: a DNS subdomain prefix, a name of at most 63 characters. */
const LABEL_KEY = /^([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;
/** Ours on every session pod; a configured label must not forge them. */
const RESERVED_PREFIX = 'dsh-tools.';

function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Label keys and values in Kubernetes syntax; `reserved` refuses the `dsh-tools.*` keys. */
export function checkLabels(label: string, key: string, labels: Record<string, string>, reserved = true): Record<string, string> {
  for (const [name, value] of Object.entries(labels)) {
    if (!LABEL_KEY.test(name)) throw configError(label, `${key}.${name}`, 'is not a valid label key');
    if (!LABEL_VALUE.test(value)) throw configError(label, `${key}.${name}`, `must be a label value (at most 63 letters, digits, -, _ or .), got ${describeValue(value)}`);
    if (reserved && name.startsWith(RESERVED_PREFIX)) throw configError(label, `${key}.${name}`, `is reserved: ${RESERVED_PREFIX}* labels are set by the server`);
  }
  return labels;
}

/** `{ requests?: {cpu, memory, ephemeral-storage}, limits?: {…} }` with quantities (numbers allowed). */
export function checkResources(label: string, value: unknown): PodResources {
  const shape = 'must be { requests?: { cpu, memory, ephemeral-storage }, limits?: { … } }';
  if (!isMapping(value)) throw configError(label, 'resources', `${shape}, got ${describeValue(value)}`);
  const out: { requests?: ResourceList; limits?: ResourceList } = {};
  for (const [part, list] of Object.entries(value)) {
    if (part !== 'requests' && part !== 'limits') throw configError(label, `resources.${part}`, 'is not a known key (known: requests, limits)');
    if (!isMapping(list)) throw configError(label, `resources.${part}`, `must be a mapping of cpu, memory, ephemeral-storage, got ${describeValue(list)}`);
    const checked: Record<string, string> = {};
    for (const [name, quantity] of Object.entries(list)) {
      if (!RESOURCE_NAMES.includes(name)) throw configError(label, `resources.${part}.${name}`, `is not a known resource (known: ${RESOURCE_NAMES.join(', ')})`);
      const text = typeof quantity === 'number' ? String(quantity) : quantity;
      if (typeof text !== 'string' || !QUANTITY.test(text)) {
        throw configError(label, `resources.${part}.${name}`, `must be a Kubernetes quantity such as 500m, 2, 512Mi or 4Gi, got ${describeValue(quantity)}`);
      }
      checked[name] = text;
    }
    out[part] = Object.freeze(checked);
  }
  return Object.freeze(out);
}

const OPERATORS = ['Exists', 'Equal'];
const EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];
const TOLERATION_KEYS = ['key', 'operator', 'value', 'effect', 'tolerationSeconds'];

export function checkTolerations(label: string, value: unknown): Toleration[] {
  if (!Array.isArray(value)) throw configError(label, 'tolerations', `must be a list of { key, operator, value, effect, tolerationSeconds }, got ${describeValue(value)}`);
  return value.map((entry, index) => {
    const at = `tolerations[${index}]`;
    if (!isMapping(entry)) throw configError(label, at, `must be a mapping, got ${describeValue(entry)}`);
    for (const name of Object.keys(entry)) {
      if (!TOLERATION_KEYS.includes(name)) throw configError(label, `${at}.${name}`, `is not a known key (known: ${TOLERATION_KEYS.join(', ')})`);
    }
    for (const name of ['key', 'value']) {
      if (entry[name] !== undefined && typeof entry[name] !== 'string') throw configError(label, `${at}.${name}`, `must be a string, got ${describeValue(entry[name])}`);
    }
    if (entry.operator !== undefined && !OPERATORS.includes(entry.operator as string)) throw configError(label, `${at}.operator`, `must be Exists or Equal, got ${describeValue(entry.operator)}`);
    if (entry.effect !== undefined && !EFFECTS.includes(entry.effect as string)) throw configError(label, `${at}.effect`, `must be one of ${EFFECTS.join(', ')}, got ${describeValue(entry.effect)}`);
    const seconds = entry.tolerationSeconds;
    if (seconds !== undefined && !(Number.isSafeInteger(seconds) && (seconds as number) >= 0)) throw configError(label, `${at}.tolerationSeconds`, `must be a whole number of seconds, got ${describeValue(seconds)}`);
    if (entry.operator === 'Exists' && entry.value !== undefined) throw configError(label, `${at}.value`, 'must be absent with operator Exists');
    return Object.freeze({ ...entry }) as Toleration;
  });
}

export function checkWorkspace(label: string, value: unknown, claimName: RegExp): WorkspaceVolume {
  if (value === 'hostPath') return value;
  const shape = 'must be hostPath or { claim: <PersistentVolumeClaim name>, subPath?: <relative path> }';
  if (!isMapping(value)) throw configError(label, 'workspace', `${shape}, got ${describeValue(value)}`);
  for (const name of Object.keys(value)) {
    if (name !== 'claim' && name !== 'subPath') throw configError(label, `workspace.${name}`, 'is not a known key (known: claim, subPath)');
  }
  const { claim, subPath } = value;
  if (typeof claim !== 'string' || !claimName.test(claim)) throw configError(label, 'workspace.claim', `must be a PersistentVolumeClaim name, got ${describeValue(claim)}`);
  if (subPath !== undefined && (typeof subPath !== 'string' || subPath === '' || subPath.startsWith('/') || subPath.split('/').includes('..'))) {
    throw configError(label, 'workspace.subPath', `must be a relative path without .., got ${describeValue(subPath)}`);
  }
  return Object.freeze(subPath === undefined ? { claim } : { claim, subPath: subPath as string });
}
