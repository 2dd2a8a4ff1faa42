import os from 'node:os';
import path from 'node:path';
import type { EnvContributor } from '../../../../src/providers/policy/env/env-registry.js';
import { LocalEnvRegistry } from '../../../../src/providers/policy/env/local-env-registry.js';
import { createHost, EnvRegistry, staticEnvModule } from '../../../../src/index.js';
import { testingEnvironment } from '../../../../src/testing.js';
import { fakeSession } from '../../../support/fake-session.js';

function contributor(name: string, keys: string[], values: Record<string, string | undefined> = {}): EnvContributor {
  return { name, keys: keys.map((key) => ({ key, description: `${key} of ${name}` })), valuesFor: () => values };
}

describe('LocalEnvRegistry', () => {
  it('collects the built-ins for the calling session, fresh on every call', () => {
    const registry = new LocalEnvRegistry([], { dshHome: '/srv/dsh' });
    const a = fakeSession('a', { jsonlPath: '/logs/a.jsonl' });
    expect(registry.collect({ session: a, mode: 'foreground', workdir: '/w' })).toEqual({
      DSH_HOME: '/srv/dsh',
      DSH_SHELL: '1',
      DSH_SESSION_ID: 'a',
      DSH_SESSION_JSONL: '/logs/a.jsonl',
    });
    expect(registry.collect({ session: fakeSession('b'), mode: 'background', workdir: '/w' })).toEqual({
      DSH_HOME: '/srv/dsh',
      DSH_SHELL: '1',
      DSH_SESSION_ID: 'b',
    });
    expect(registry.collect({ mode: 'foreground', workdir: '/w' })).toEqual({ DSH_HOME: '/srv/dsh', DSH_SHELL: '1' });
  });

  it('takes DSH_HOME from config, else the ambient $DSH_HOME, else ~/.dsh — always absolute', () => {
    const saved = process.env.DSH_HOME;
    try {
      process.env.DSH_HOME = 'relative/home';
      const ambient = new LocalEnvRegistry([], {}).collect({ mode: 'foreground', workdir: '/' });
      expect(ambient.DSH_HOME).toBe(path.resolve('relative/home'));
      delete process.env.DSH_HOME;
      const fallback = new LocalEnvRegistry([], undefined).collect({ mode: 'foreground', workdir: '/' });
      expect(fallback.DSH_HOME).toBe(path.join(os.homedir(), '.dsh'));
    } finally {
      if (saved === undefined) delete process.env.DSH_HOME;
      else process.env.DSH_HOME = saved;
    }
  });

  it('adds contributors’ values and lists every declaration without running them', () => {
    let ran = 0;
    const deploy: EnvContributor = {
      ...contributor('deploy', ['DSH_DEPLOY_ENV']),
      valuesFor: () => {
        ran += 1;
        return { DSH_DEPLOY_ENV: 'staging' };
      },
    };
    const registry = new LocalEnvRegistry([deploy], {});
    expect(registry.list().map((info) => [info.name, info.keys.map((k) => k.key)])).toEqual([
      ['dsh', ['DSH_HOME', 'DSH_SHELL', 'DSH_SESSION_ID', 'DSH_SESSION_JSONL']],
      ['deploy', ['DSH_DEPLOY_ENV']],
    ]);
    expect(ran).toBe(0);
    expect(registry.collect({ mode: 'persistent', workdir: '/' }).DSH_DEPLOY_ENV).toBe('staging');
    expect(ran).toBe(1);
  });

  it('fails loudly on a second owner of a key, naming both contributors and the key', () => {
    expect(() => new LocalEnvRegistry([contributor('one', ['DSH_X']), contributor('two', ['DSH_X'])], {})).toThrow(
      'env contributor "two" declares DSH_X, which "one" already owns',
    );
    expect(() => new LocalEnvRegistry([contributor('mine', ['DSH_SESSION_ID'])], {})).toThrow(
      'env contributor "mine" declares DSH_SESSION_ID, which "dsh" already owns',
    );
  });

  it('fails loudly on an undeclared runtime key, naming the contributor and the key', () => {
    const registry = new LocalEnvRegistry([contributor('sneaky', ['DSH_A'], { DSH_A: '1', DSH_B: '2' })], {});
    expect(() => registry.collect({ mode: 'foreground', workdir: '/' })).toThrow(
      'env contributor "sneaky" returned DSH_B, which it did not declare',
    );
  });

  it('fails loudly on a value no environment can carry (not a string, or with a NUL), naming the contributor and the key', () => {
    for (const value of [42 as unknown as string, 'a\0b']) {
      const registry = new LocalEnvRegistry([contributor('odd', ['DSH_A'], { DSH_A: value })], {});
      expect(() => registry.collect({ mode: 'foreground', workdir: '/' })).toThrow(
        'env contributor "odd" returned DSH_A that is not a string without NUL characters',
      );
    }
  });

  it('rejects keys without the DSH_ prefix and two contributors of one name', () => {
    expect(() => new LocalEnvRegistry([contributor('bad', ['PATH'])], {})).toThrow(
      'env contributor "bad" declares "PATH": keys must match DSH_[A-Z0-9_]+',
    );
    expect(() => new LocalEnvRegistry([contributor('twin', ['DSH_A']), contributor('twin', ['DSH_B'])], {})).toThrow(
      'two env contributors are named "twin"',
    );
  });

  it('keeps the tools that need clashing contributors pending with the clash as the reason; the host comes up', async () => {
    const host = await createHost(...testingEnvironment(), staticEnvModule('a', { DSH_STAGE: 'x' }), staticEnvModule('b', { DSH_STAGE: 'y' }));
    try {
      const bash = host.pending().find((tool) => tool.name === 'bash');
      expect(bash?.error).toContain('env contributor "b" declares DSH_STAGE, which "a" already owns');
      expect(host.tools().map((tool) => tool.name)).toContain('task_list');
    } finally {
      await host.dispose();
    }
  });

  it('is reachable from a composition with static values', async () => {
    const host = await createHost(...testingEnvironment(), staticEnvModule('deploy', { DSH_STAGE: 'prod' }));
    try {
      expect(host.get(EnvRegistry).collect({ mode: 'foreground', workdir: '/' }).DSH_STAGE).toBe('prod');
    } finally {
      await host.dispose();
    }
  });
});
