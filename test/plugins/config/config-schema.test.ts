// Issue 37 item 8: the shipped JSON Schema and the loader agree — every key
// the loader accepts is in the schema and no other, and the documented sample
// files pass both (and bad ones fail both).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { configSchema, validateConfig } from '../../../src/index.js';
import { CONTAINER_CONFIG_KEYS } from '../../../src/providers/exec/engine/container-config.js';
import { KUBERNETES_CONFIG_KEYS } from '../../../src/providers/backends/kubernetes/kubernetes-config.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const shipped = JSON.parse(readFileSync(path.join(ROOT, 'docs/config.schema.json'), 'utf8')) as Schema;
type Schema = { properties: Record<string, Schema>; additionalProperties?: unknown };
const schemaValid = new Ajv2020({ strict: true, allowUnionTypes: true }).compile(shipped);

/** The keys the loader lists when it refuses an unknown one. */
function loaderKeys(data: unknown): string[] {
  try {
    validateConfig(data, 'c.yaml');
  } catch (error) {
    const known = /unknown key \(known: ([^)]*)\)/.exec((error as Error).message);
    if (known) return known[1]!.split(', ');
    throw error;
  }
  throw new Error('the loader accepted an unknown key');
}

/** A documented YAML block: the first ```yaml fence after `heading` in a docs file. */
function documentedYaml(file: string, heading: string): unknown {
  const markdown = readFileSync(path.join(ROOT, 'docs', file), 'utf8');
  const block = /```yaml\n([\s\S]*?)```/.exec(markdown.slice(markdown.indexOf(heading)));
  return parse(block![1]!);
}

describe('the composition file JSON Schema', () => {
  it('is shipped as docs/config.schema.json exactly as configSchema() builds it (regenerate: npm run build && node scripts/config-schema.mjs)', () => {
    expect(shipped).toEqual(configSchema());
  });

  it('lists the top-level keys the loader accepts, and no other', () => {
    expect(Object.keys(shipped.properties).sort()).toEqual(loaderKeys({ zzz: 1 }).sort());
    expect(shipped.additionalProperties).toBe(false);
  });

  const sections = Object.entries(shipped.properties).filter(([key, value]) => value.properties !== undefined && !['container', 'kubernetes'].includes(key));

  it('finds the sections it compares', () => {
    expect(sections.map(([key]) => key)).toEqual(expect.arrayContaining(['executor', 'sandbox', 'approval', 'toolNames', 'serve']));
  });

  it.each(sections)('lists the keys of %s: that the loader accepts, and no other', (key, section) => {
    expect(Object.keys(section.properties).sort()).toEqual(loaderKeys({ [key]: { zzz: 1 } }).sort());
    expect(section.additionalProperties).toBe(false);
  });

  it.each([
    ['container', CONTAINER_CONFIG_KEYS],
    ['kubernetes', KUBERNETES_CONFIG_KEYS],
  ] as const)('lists the keys of %s: that its provider accepts, and no other', (key, known) => {
    expect(Object.keys(shipped.properties[key]!.properties).sort()).toEqual([...known].sort());
    expect(() => validateConfig({ [key]: { zzz: 1 } }, 'c.yaml')).toThrow(`c.yaml: ${key}: zzz is not a known key`);
    for (const name of known) {
      // Any value: the key must not be refused as unknown (its value may be).
      expect(() => validateConfig({ [key]: { [name]: '?' } }, 'c.yaml')).not.toThrow(/is not a known key/);
    }
  });

  const samples: Array<[string, unknown]> = [
    ['docs/configuration.md, the complete file', documentedYaml('configuration.md', '# Configuration')],
    ['docs/kubernetes.md, the kubernetes: section', documentedYaml('kubernetes.md', '## Configuration')],
    ['an empty file', {}],
    ['a sandboxed composition with rules', { workspace: '.', sandbox: { mode: 'workspace-write', network: false }, approval: { rules: [{ match: '/^rm\\b/', action: 'deny', name: 'no rm' }] } }],
    ['a container composition', { shell: 'both', container: { image: 'img:1', network: 'none', memory: '512m', pidsLimit: 'unlimited' }, sandbox: { mode: 'read-only' } }],
    ['a claim workspace on Kubernetes', { kubernetes: { image: 'img', workspace: { claim: 'work', subPath: 'a' }, networkPolicy: { egress: { mode: 'open', dns: false } } } }],
  ];

  it.each(samples)('accepts %s, as the loader does', (_name, sample) => {
    expect(schemaValid(sample) ? [] : schemaValid.errors).toEqual([]);
    expect(() => validateConfig(sample, 'c.yaml')).not.toThrow();
  });

  it.each([
    ['an unknown top-level key', { shel: 'oneshot' }],
    ['an unknown nested key', { executor: { maxOutputByte: 1 } }],
    ['an unknown container key', { container: { image: 'i', colour: 'red' } }],
    ['an unknown rule key', { approval: { rules: [{ match: 'x', action: 'deny', when: 1 }] } }],
    ['a misspelt sandbox mode', { sandbox: { mode: 'readonly' } }],
    ['the old sandboxMode key', { sandboxMode: 'read-only' }],
    ['a string for a number', { executor: { timeoutMs: '5' } }],
    ['a non-DSH env name', { env: { deploy: { STAGE: 'x' } } }],
    ['a list at the top', [1, 2]],
  ])('refuses %s, as the loader does', (_name, sample) => {
    expect(schemaValid(sample)).toBe(false);
    expect(() => validateConfig(sample, 'c.yaml')).toThrow(/^c\.yaml: /);
  });
});
