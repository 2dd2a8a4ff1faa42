import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfigFile, validateConfig } from '../../../src/plugins/config/config-file.js';

describe('composition files', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-config-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads YAML and resolves the workspace against the file', async () => {
    const file = path.join(dir, 'dsh.yaml');
    writeFileSync(file, 'workspace: repo\nshell: persistent\nexecutor:\n  timeoutMs: 5000\n  allowEnv: [GH_TOKEN]\n');
    expect(await loadConfigFile(file)).toEqual({
      workspace: path.join(dir, 'repo'),
      shell: 'persistent',
      executor: { timeoutMs: 5000, allowEnv: ['GH_TOKEN'] },
    });
  });

  it('reads shell: both with the shells\' tool names', async () => {
    const file = path.join(dir, 'both.yaml');
    writeFileSync(file, 'shell: both\ntoolNames:\n  persistent: shell\n');
    expect(await loadConfigFile(file)).toEqual({ shell: 'both', toolNames: { persistent: 'shell' } });
  });

  it.each([
    [{ shel: 'oneshot' }, 'shel: unknown key'],
    [{ toolNames: { oneshot: 3 } }, 'toolNames.oneshot: expected a non-empty string'],
    [{ shell: 'zsh' }, 'shell: expected one of oneshot, persistent'],
    [{ executor: { maxOutputByte: 1 } }, 'executor.maxOutputByte: unknown key'],
    [{ executor: { timeoutMs: '5' } }, 'executor.timeoutMs: expected a positive integer'],
    [{ bash: { enableRunInBackground: 'no' } }, 'bash.enableRunInBackground: expected true or false'],
    [{ env: { deploy: { STAGE: 'x' } } }, 'env.deploy.STAGE: names must match DSH_[A-Z0-9_]+'],
    [{ env: { deploy: { DSH_STAGE: 1 } } }, 'env.deploy.DSH_STAGE: expected a string value'],
    [{ redact: { values: 'x' } }, 'redact.values: expected a list of strings'],
    [{ redact: { builtin: true } }, 'redact.builtin: unknown key'],
    [[1, 2], '(top level): expected a mapping of keys'],
  ])('rejects %j', (data, message) => {
    expect(() => validateConfig(data, '/etc/dsh.yaml')).toThrow(`/etc/dsh.yaml: ${message}`);
  });

  it('names the file when it cannot be read or parsed', async () => {
    await expect(loadConfigFile(path.join(dir, 'missing.yaml'))).rejects.toThrow(/missing\.yaml: cannot read the config file \(ENOENT\)/);
    const broken = path.join(dir, 'broken.json');
    writeFileSync(broken, '{"shell": ');
    await expect(loadConfigFile(broken)).rejects.toThrow(/broken\.json: not valid JSON/);
  });
});

describe('approval.rules in composition files', () => {
  it('accepts rules with a prefix or /regex/ match and a default action', () => {
    const config = validateConfig(
      { approval: { rules: [{ match: 'git status', action: 'allow' }, { match: '/^rm\\b/', action: 'deny', name: 'no rm' }], defaultAction: 'ask' } },
      '/etc/dsh.yaml',
    );
    expect(config.approval).toMatchObject({ defaultAction: 'ask', rules: [{ match: 'git status' }, { match: '/^rm\\b/', name: 'no rm' }] });
  });

  it.each([
    [{ rules: [{ match: 'x', action: 'maybe' }] }, 'approval.rules: item 0: action must be one of allow, ask, deny'],
    [{ rules: [{ match: '', action: 'deny' }] }, 'approval.rules: item 0: match must be a command prefix or /regex/'],
    [{ rules: [{ match: 'x', action: 'deny', when: 1 }] }, 'approval.rules: item 0: unknown key when (known: match, action, name)'],
    [{ defaultAction: 'sometimes' }, 'approval.defaultAction: expected one of allow, ask, deny'],
  ])('rejects %j', (approval, message) => {
    expect(() => validateConfig({ approval }, '/etc/dsh.yaml')).toThrow(`/etc/dsh.yaml: ${message}`);
  });
});
