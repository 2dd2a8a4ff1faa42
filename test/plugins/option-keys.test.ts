// Issue 37 item 8: unknown keys are errors everywhere — also when the options
// object comes from JSON at run time and never met the TypeScript types —
// and the sandbox mode has one spelling, `sandbox: { mode }`, in every environment.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  configSchema,
  ContainerConfig,
  containerEnvironment,
  createHost,
  kubernetesEnvironment,
  localEnvironment,
  sandboxedEnvironment,
  validateConfig,
  type ContainerEnvironmentOptions,
  type EnvironmentOptions,
  type KubernetesEnvironmentOptions,
  type SandboxedEnvironmentOptions,
} from '../../src/index.js';
import { LOCAL_OPTION_KEYS } from '../../src/plugins/option-keys.js';

/** Options as a JSON parser hands them over: no type checked them. */
const fromJson = <T>(json: string): T => JSON.parse(json) as T;

let workspace: string;
beforeAll(() => (workspace = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dsh-option-keys-')))));
afterAll(() => rmSync(workspace, { recursive: true, force: true }));

describe('environment options from JSON at run time', () => {
  it.each([
    ['localEnvironment', () => localEnvironment(fromJson<EnvironmentOptions>('{"shel": "oneshot"}')), 'localEnvironment: shel is not a known option (known: workspace, dshHome, '],
    ['localEnvironment', () => localEnvironment(fromJson<EnvironmentOptions>('{"sandbox": {"mode": "read-only"}}')), 'localEnvironment: sandbox is not a known option'],
    ['localEnvironment', () => localEnvironment(fromJson<EnvironmentOptions>('{"toolNames": {"oneShot": "sh"}}')), 'localEnvironment: toolNames.oneShot is not a known option (known: oneshot, persistent)'],
    ['localEnvironment', () => localEnvironment(fromJson<EnvironmentOptions>('{"audit": {"path": "a.jsonl"}}')), 'localEnvironment: audit.path is not a known option (known: file)'],
    ['localEnvironment', () => localEnvironment(fromJson<EnvironmentOptions>('{"telemetry": {"command": true}}')), 'localEnvironment: telemetry.command is not a known option (known: includeCommand)'],
    ['localEnvironment', () => localEnvironment(fromJson<EnvironmentOptions>('[]')), 'localEnvironment: options must be an object, got an array'],
    ['sandboxedEnvironment', () => sandboxedEnvironment(fromJson<SandboxedEnvironmentOptions>('{"workspace": "/tmp", "container": {"image": "i"}}')), 'sandboxedEnvironment: container is not a known option'],
    ['sandboxedEnvironment', () => sandboxedEnvironment(fromJson<SandboxedEnvironmentOptions>('{"sandbox": {"mod": "read-only"}}')), 'sandboxedEnvironment: sandbox.mod is not a known option (known: mode, network, fallbackRoot, bwrapPath, protectedPaths, limits)'],
    ['containerEnvironment', () => containerEnvironment(fromJson<ContainerEnvironmentOptions>('{"container": {"image": "i"}, "sandboxMode": "read-only"}')), 'containerEnvironment: sandboxMode is not a known option (known: '],
    ['containerEnvironment', () => containerEnvironment(fromJson<ContainerEnvironmentOptions>('{"container": {"image": "i"}, "sandbox": {"bwrapPath": "/x"}}')), 'containerEnvironment: sandbox.bwrapPath is not a known option (known: mode, network)'],
    ['containerEnvironment', () => containerEnvironment(fromJson<ContainerEnvironmentOptions>('{"container": {"image": "i"}, "sandbox": {"mode": "readonly"}}')), 'containerEnvironment: sandbox.mode must be one of read-only, workspace-write, danger-full-access, got "readonly"'],
    ['containerEnvironment', () => containerEnvironment(fromJson<ContainerEnvironmentOptions>('{"container": {"image": "i", "colour": "red"}}')), 'invalid container config: colour is not a known key'],
    ['kubernetesEnvironment', () => kubernetesEnvironment(fromJson<KubernetesEnvironmentOptions>('{"kubernetes": {"image": "i"}, "container": {"image": "i"}}')), 'kubernetesEnvironment: container is not a known option'],
    ['kubernetesEnvironment', () => kubernetesEnvironment(fromJson<KubernetesEnvironmentOptions>('{"kubernetes": {"image": "i"}, "sandbox": {"network": false}}')), 'kubernetesEnvironment: sandbox.network is not a known option (known: mode)'],
    ['kubernetesEnvironment', () => kubernetesEnvironment(fromJson<KubernetesEnvironmentOptions>('{"kubernetes": {"image": "i"}, "sandboxMode": "read-only"}')), 'sandboxMode is not a known option'],
  ])('%s refuses a bad key: %#', (_fn, compose, message) => {
    expect(compose).toThrow(message);
  });

  it('refuses a bad key inside a provider section by createHost at the latest', async () => {
    await expect(createHost(...localEnvironment(fromJson<EnvironmentOptions>(`{"workspace": ${JSON.stringify(workspace)}, "executor": {"timeoutMS": 5}}`)))).rejects.toThrow(
      'invalid executor config: timeoutMS is not a known key',
    );
  });

  it('says where the old sandboxMode spelling went', () => {
    expect(() => containerEnvironment(fromJson<ContainerEnvironmentOptions>('{"container": {"image": "i"}, "sandboxMode": "read-only"}'))).toThrow(
      /; the sandbox mode is sandbox: \{ mode \}$/,
    );
  });

  it('takes every key of the composition file but the engine sections (one list for the file and the functions)', () => {
    const fileKeys = Object.keys(configSchema().properties as object);
    expect([...LOCAL_OPTION_KEYS, 'sandbox', 'container', 'kubernetes', 'serve'].sort()).toEqual(fileKeys.sort());
    expect(LOCAL_OPTION_KEYS).toEqual(expect.arrayContaining(['workspace', 'shell', 'toolNames', 'executor', 'env', 'approval', 'redact', 'audit', 'telemetry']));
    expect(() => localEnvironment(fromJson<EnvironmentOptions>(JSON.stringify({ workspace, shell: 'both', toolNames: { oneshot: 'sh' }, audit: {}, telemetry: { includeCommand: false } })))).not.toThrow();
  });
});

describe('one spelling of the sandbox mode: sandbox: { mode }', () => {
  it('containerEnvironment mounts the workspace read-only under sandbox: { mode: read-only }, and network: false means no network', async () => {
    const host = await createHost(...containerEnvironment({ workspace, container: { image: 'img' }, sandbox: { mode: 'read-only', network: false } }));
    try {
      expect(host.get(ContainerConfig).network).toBe('none');
    } finally {
      await host.dispose();
    }
  });

  it('a container network given beside network: false is kept (the container section is the finer setting)', async () => {
    const host = await createHost(...containerEnvironment({ workspace, container: { image: 'img', network: 'session' }, sandbox: { network: false } }));
    try {
      expect(host.get(ContainerConfig).network).toBe('session');
    } finally {
      await host.dispose();
    }
  });

  it('the same options object composes the sandboxed and the container environment', () => {
    const sandbox = { mode: 'workspace-write', network: false } as const;
    expect(() => sandboxedEnvironment({ workspace, sandbox })).not.toThrow();
    expect(() => containerEnvironment({ workspace, sandbox, container: { image: 'img' } })).not.toThrow();
    expect(validateConfig({ sandbox }, 'c.yaml').sandbox).toEqual(sandbox);
  });
});
