// The heavy backends' packages are optional peers of dsh-tools: this app
// installs the ones it uses (dockerode, the bash parser) in its own
// package.json and dsh-tools finds them there; the one it does not
// (@kubernetes/client-node) is named when a composition needs it.
import 'reflect-metadata';
import { containerEnvironment, createHost, kubernetesEnvironment } from 'dsh-tools';
import { tmpdir } from 'node:os';

it('composes the container environment with the app\'s own dockerode', async () => {
  const host = await createHost(...containerEnvironment({ workspace: tmpdir(), container: { image: 'alpine:3' } }));
  try {
    expect(host.pending()).toEqual([]);
    expect(host.tools().map((tool) => tool.name)).toContain('bash');
  } finally {
    await host.dispose();
  }
});

it('names the package a composition needs when the app did not install it', async () => {
  await expect(createHost(...kubernetesEnvironment({ workspace: tmpdir(), kubernetes: { image: 'alpine:3' } }))).rejects.toThrow(
    'the Kubernetes engine needs @kubernetes/client-node, which is not installed: install it beside dsh-tools (npm install @kubernetes/client-node)',
  );
});
