// Run inside a project that installed only the packed tarball (no optional
// peer dependencies): a local-only embed. Argument `require` uses the
// CommonJS build, `import` the ESM one. The one-shot shell runs; each
// composition that needs a missing package fails at createHost naming it.
const assert = require('node:assert');
require('reflect-metadata');

const OPTIONAL = ['dockerode', '@kubernetes/client-node', 'web-tree-sitter', 'tree-sitter-bash', 'node-pty'];

async function refusal(compose) {
  try {
    const host = await compose();
    await host.dispose();
  } catch (error) {
    return error.message;
  }
  assert.fail('createHost succeeded without the package the composition needs');
}

async function main(mode) {
  for (const name of OPTIONAL) {
    assert.throws(() => require.resolve(name), { code: 'MODULE_NOT_FOUND' }, `${name} is installed`);
  }
  const lib = mode === 'import' ? await import('dsh-tools') : require('dsh-tools');
  const { createHost, localEnvironment, containerEnvironment, kubernetesEnvironment, judgeCommand } = lib;
  const workspace = process.cwd();

  const host = await createHost(...localEnvironment({ workspace }));
  try {
    const echo = await host.openSession().call('bash', { command: 'echo local only', description: 'Echo' });
    assert.strictEqual(echo.content[0].text, 'local only');
  } finally {
    await host.dispose();
  }

  assert.strictEqual(
    await refusal(() => createHost(...containerEnvironment({ workspace, container: { image: 'alpine:3' } }))),
    'failed to load plugin "shell:container": the Docker container engine needs dockerode, which is not installed: install it beside dsh-tools (npm install dockerode)',
  );
  assert.strictEqual(
    await refusal(() => createHost(...kubernetesEnvironment({ workspace, kubernetes: { image: 'alpine:3' } }))),
    'failed to load plugin "shell:container": the Kubernetes engine needs @kubernetes/client-node, which is not installed: install it beside dsh-tools (npm install @kubernetes/client-node)',
  );
  const rules = [{ match: 'echo', action: 'allow' }];
  assert.strictEqual(
    await refusal(() => createHost(...localEnvironment({ workspace, approval: { rules, defaultAction: 'deny' } }))),
    'failed to load plugin "approval:local": the command-rule parser needs web-tree-sitter and tree-sitter-bash, which are not installed: install them beside dsh-tools (npm install web-tree-sitter tree-sitter-bash)',
  );
  // Judged outside a host, a line the parser cannot read is refused (fail closed), with the reason.
  const judged = await judgeCommand('echo hi', rules, 'deny');
  assert.strictEqual(judged.action, 'deny');
  assert.match(judged.rule, /npm install web-tree-sitter tree-sitter-bash/);
  console.log(`local only (${mode}): ok`);
}

main(process.argv[2]).catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
