// Issue 37 item 8 from the packed package: a composition file loads through
// the library with the CLI's checks and errors, composes a real host, and the
// shipped JSON Schema lists the keys the loader takes.
import 'reflect-metadata';
import { configModules, configSchema, createHost, loadConfigFile, localEnvironment, validateConfig, type EnvironmentOptions } from 'dsh-tools';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { hostFromConfigFile } from '../src/config-host.js';

let dir: string;
beforeAll(() => (dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'consumer-config-')))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const full = path.join(dir, name);
  writeFileSync(full, text);
  return full;
}

it.each([
  ['typo.yaml', 'shel: oneshot\n', 'shel: unknown key (known: workspace, '],
  ['nested.yaml', 'executor:\n  maxOutputByte: 1\n', 'executor.maxOutputByte: unknown key (known: timeoutMs, '],
  ['number.json', '{"executor": {"timeoutMs": "5"}}', 'executor.timeoutMs: expected a positive integer'],
  ['mode.yaml', 'sandbox:\n  mode: readonly\n', 'sandbox.mode: expected one of read-only, workspace-write, danger-full-access'],
  ['rule.yaml', 'approval:\n  rules:\n    - { match: rm, action: maybe }\n', 'approval.rules: item 0: action must be one of allow, ask, deny'],
  ['container.yaml', 'container:\n  image: i\n  colour: red\n', 'container: colour is not a known key'],
  ['broken.json', '{"shell": ', 'not valid JSON'],
])('refuses %s with the file, the key and the reason', async (name, text, reason) => {
  const full = file(name, text);
  await expect(loadConfigFile(full)).rejects.toThrow(`${full}: ${reason}`);
});

it('loads a file, composes it and runs a real command under its rules', async () => {
  mkdirSync(path.join(dir, 'repo'));
  const host = await hostFromConfigFile(file('dsh.yaml', 'workspace: repo\napproval:\n  rules:\n    - { match: rm, action: deny, name: no rm }\n'));
  try {
    expect((await host.call('bash', { command: 'pwd', description: 'Where' })).content[0]?.text).toBe(path.join(dir, 'repo'));
    expect((await host.call('bash', { command: 'rm -f x', description: 'Remove' })).content[0]?.text).toBe('Error: command denied by policy: no rm');
    expect(host.tools().map((tool) => tool.name)).toContain('disk_usage');
  } finally {
    await host.dispose();
  }
});

it('says what is wrong in library words, not with CLI flags', async () => {
  const both = configModules(validateConfig({ workspace: dir, container: { image: 'i' }, kubernetes: { image: 'i' } }, 'app-config'));
  await expect(both).rejects.toThrow('the container: and kubernetes: sections exclude each other: choose one');
  const missing = path.join(dir, 'gone');
  await expect(createHost(...(await configModules({ workspace: missing })))).rejects.toThrow(`the workspace ${missing} does not exist`);
});

it('refuses unknown keys in options that come from JSON at run time', () => {
  const fromJson = JSON.parse('{"workspace": "/tmp", "sandboxMode": "read-only"}') as EnvironmentOptions;
  expect(() => localEnvironment(fromJson)).toThrow('localEnvironment: sandboxMode is not a known option');
});

it('ships the JSON Schema the loader agrees with', () => {
  const shipped = JSON.parse(readFileSync(path.join(process.cwd(), 'node_modules/dsh-tools/docs/config.schema.json'), 'utf8'));
  expect(shipped).toEqual(configSchema());
  expect(Object.keys(shipped.properties)).toEqual(expect.arrayContaining(['workspace', 'sandbox', 'container', 'kubernetes', 'approval']));
  expect(() => validateConfig({ notInTheSchema: 1 }, 'x.yaml')).toThrow('x.yaml: notInTheSchema: unknown key');
});
