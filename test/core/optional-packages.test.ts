// The heavy backends' packages are optional peer dependencies
// (docs/embedding.md, "What an install weighs"): a composition that needs a
// missing one fails with the package to install. The real absence runs in
// scripts/consumer-check.sh (an install without them); here the resolver is faked.
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createHost } from '../../src/container/create-host.js';
import { installMessage, missingPackages, OPTIONAL_PACKAGES, requirePackages, type Resolve } from '../../src/core/optional-packages.js';
import type { ContainerEngine } from '../../src/providers/exec/engine/container-engine.js';
import { DockerContainerEngine } from '../../src/providers/backends/docker/docker-container-engine.js';
import { KubernetesEngine } from '../../src/providers/backends/kubernetes/kubernetes-engine.js';
import { resolveKubernetesConfig } from '../../src/providers/backends/kubernetes/kubernetes-config.js';
import { containerEnvironment } from '../../src/plugins/container.environment.js';

/** A resolver on which `absent` are not installed, the way Node says it. */
function without(...absent: string[]): Resolve {
  return (name) => {
    if (absent.includes(name)) throw Object.assign(new Error(`Cannot find module '${name}'`), { code: 'MODULE_NOT_FOUND' });
    return `/somewhere/${name}`;
  };
}

describe('optional packages', () => {
  it('names each missing package and the command that installs it', () => {
    expect(() => requirePackages('the Docker container engine', ['dockerode'], without('dockerode'))).toThrow(
      'the Docker container engine needs dockerode, which is not installed: install it beside dsh-tools (npm install dockerode)',
    );
    expect(installMessage('the command-rule parser', ['web-tree-sitter', 'tree-sitter-bash'])).toBe(
      'the command-rule parser needs web-tree-sitter and tree-sitter-bash, which are not installed: ' +
        'install them beside dsh-tools (npm install web-tree-sitter tree-sitter-bash)',
    );
    expect(() => requirePackages('x', ['dockerode'], without('other'))).not.toThrow();
  });

  it('counts a package that resolves but refuses the resolution as installed (its load says what is wrong)', () => {
    const refusing: Resolve = () => {
      throw Object.assign(new Error('No "exports" main defined'), { code: 'ERR_PACKAGE_PATH_NOT_EXPORTED' });
    };
    expect(missingPackages(['web-tree-sitter'], refusing)).toEqual([]);
    expect(missingPackages(['a', 'b', 'c'], without('a', 'c'))).toEqual(['a', 'c']);
  });

  it('resolves from this package without loading: the dev install has every optional package, a made-up name is missing', () => {
    const all = Object.values(OPTIONAL_PACKAGES).flat();
    expect(missingPackages(all)).toEqual([]);
    expect(missingPackages(['dsh-tools-no-such-package'])).toEqual(['dsh-tools-no-such-package']);
    expect(() => new DockerContainerEngine('unix:///nowhere.sock').assertInstalled()).not.toThrow();
    expect(() => new KubernetesEngine(resolveKubernetesConfig({ image: 'x:1' })).assertInstalled()).not.toThrow();
  });

  it('a container composition whose engine client is missing fails createHost with what to install', async () => {
    const engine = {
      endpoint: 'fake://engine',
      assertInstalled: () => requirePackages('the Docker container engine', ['dockerode'], without('dockerode')),
    } as unknown as ContainerEngine;
    await expect(createHost(...containerEnvironment({ workspace: tmpdir(), container: { image: 'x:1' }, engine }))).rejects.toThrow(
      'failed to load plugin "shell:container": the Docker container engine needs dockerode, which is not installed: ' +
        'install it beside dsh-tools (npm install dockerode)',
    );
  });

  it('package.json: every optional package is an optional peer, a devDependency (CI installs it), never a dependency', () => {
    const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as Record<string, Record<string, unknown>>;
    for (const name of [...Object.values(OPTIONAL_PACKAGES).flat(), 'node-pty']) {
      expect([name, manifest.peerDependencies![name] !== undefined]).toEqual([name, true]);
      expect([name, manifest.peerDependenciesMeta![name]]).toEqual([name, { optional: true }]);
      expect([name, manifest.devDependencies![name]]).toEqual([name, manifest.peerDependencies![name]]);
      expect([name, manifest.dependencies![name]]).toEqual([name, undefined]);
    }
  });
});
