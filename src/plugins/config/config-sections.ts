import { resolveContainerConfig } from '../../providers/exec/engine/container-config.js';
import { resolveKubernetesConfig } from '../../providers/backends/kubernetes/kubernetes-config.js';
import type { ConfigValue, JsonSchema } from './config-checks.js';

/**
 * The `container:` and `kubernetes:` sections are checked by the providers'
 * own rules (the shared config merge), so the file and the environment
 * functions never disagree. `image` may come from elsewhere (the CLI's
 * `--container`), so a section without it is checked with a placeholder.
 */
function providerChecked(resolve: (value: unknown) => unknown, prefix: RegExp, schema: JsonSchema): ConfigValue {
  return {
    schema,
    check: (value) => {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'expected a mapping';
      try {
        resolve({ image: 'placeholder', ...(value as object) });
        return undefined;
      } catch (error) {
        return (error as Error).message.replace(prefix, '');
      }
    },
  };
}

const text = { type: 'string', minLength: 1 };
const strings = { type: 'array', items: { type: 'string' } };
const stringMap = { type: 'object', additionalProperties: { type: 'string' } };
const section = (properties: Record<string, JsonSchema>): JsonSchema => ({ type: 'object', additionalProperties: false, properties });

export const containerSection = providerChecked(
  resolveContainerConfig,
  /^invalid container config: /,
  section({
    image: text,
    host: text,
    mounts: strings,
    network: text,
    egress: { enum: ['none', 'host', 'internet'] },
    memory: { type: ['string', 'integer'] },
    cpus: { type: 'number', exclusiveMinimum: 0 },
    pidsLimit: { oneOf: [{ type: 'integer', minimum: 1 }, { const: 'unlimited' }] },
    capabilities: strings,
    noNewPrivileges: { type: 'boolean' },
    seccomp: { enum: ['dsh', 'engine-default'] },
    user: text,
    readOnlyRootfs: { type: 'boolean' },
    env: stringMap,
    protectedPaths: strings,
    warmPool: { type: 'integer', minimum: 0, maximum: 32 },
    channel: { enum: [true, false, 'bash'] },
  }),
);

const resourceList = section({ cpu: { type: ['string', 'number'] }, memory: { type: ['string', 'number'] }, 'ephemeral-storage': { type: ['string', 'number'] } });

export const kubernetesSection = providerChecked(
  resolveKubernetesConfig,
  /^invalid kubernetes config: /,
  section({
    image: text,
    namespace: text,
    kubeconfig: text,
    context: text,
    env: stringMap,
    mounts: strings,
    resources: section({ requests: resourceList, limits: resourceList }),
    nodeSelector: stringMap,
    tolerations: {
      type: 'array',
      items: section({
        key: { type: 'string' },
        operator: { enum: ['Exists', 'Equal'] },
        value: { type: 'string' },
        effect: { enum: ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] },
        tolerationSeconds: { type: 'integer', minimum: 0 },
      }),
    },
    runtimeClassName: text,
    serviceAccountName: text,
    labels: stringMap,
    annotations: stringMap,
    podStartTimeoutMs: { type: 'integer', minimum: 1 },
    workspace: { oneOf: [{ const: 'hostPath' }, { ...section({ claim: text, subPath: text }), required: ['claim'] }] },
    user: { type: 'string', pattern: '^[0-9]+(:[0-9]+)?$' },
    leaseSeconds: { type: 'integer', minimum: 1 },
    networkPolicy: {
      oneOf: [
        { type: 'boolean' },
        section({
          egress: section({
            mode: { enum: ['restricted', 'open'] },
            clusterCidrs: strings,
            allowCidrs: strings,
            dns: { oneOf: [{ const: false }, { ...section({ namespace: text, podLabels: stringMap }), required: ['namespace', 'podLabels'] }] },
          }),
        }),
      ],
    },
    protectedPaths: strings,
    seccompProfile: text,
    warmPool: { type: 'integer', minimum: 0, maximum: 32 },
    channel: { enum: [true, false, 'bash'] },
  }),
);

/** One composition runs commands in one place: containers or pods, not both. */
export function checkOneEngine(config: { readonly container?: unknown; readonly kubernetes?: unknown }): void {
  if (config.container !== undefined && config.kubernetes !== undefined) {
    throw new Error('the container: and kubernetes: sections exclude each other: choose one');
  }
}
