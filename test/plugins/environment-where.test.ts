// The model is told where its commands run (issue 37, item 9): each confining composition contributes an
// `environment:where` prompt section with short factual lines (docs/contract.md, "Where commands run"),
// and the local unconfined composition adds none. What a line claims is checked against the real
// sandbox or container where that is cheap.
import { readFileSync, realpathSync } from 'node:fs';
import { createHost, containerEnvironment, kubernetesEnvironment, localEnvironment, sandboxedEnvironment, type DshHost } from '../../src/index.js';
import { containerWherePrompt, sandboxWherePrompt, WHERE_TEXTS } from '../../src/core/where-prompt.js';
import { tempWorkspace } from '../support/sandbox-test-kit.js';
import { describeWithBwrap, NEEDS_BWRAP } from '../support/bwrap.js';
import { describeWithEngine, NEEDS_ENGINE, TEST_IMAGE } from '../support/container-engine.js';

const text = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');
const whereOf = (host: DshHost) => host.prompt().sections.find((section) => section.name === 'environment:where');

let ws: ReturnType<typeof tempWorkspace>;
beforeAll(() => void (ws = tempWorkspace('dsh-where-')));
afterAll(() => ws.remove());

async function whereText(modules: Parameters<typeof createHost>): Promise<string | undefined> {
  const host = await createHost(...modules);
  try {
    return whereOf(host)?.text;
  } finally {
    await host.dispose();
  }
}

test('the lines of each sandbox mode and container kind', () => {
  expect(sandboxWherePrompt('read-only', true)).toBe(WHERE_TEXTS.sandboxReadOnly);
  expect(sandboxWherePrompt('workspace-write', false)).toBe(`${WHERE_TEXTS.sandboxWorkspaceWrite} ${WHERE_TEXTS.noNetwork}`);
  expect(sandboxWherePrompt('danger-full-access', false)).toBe('');
  expect(containerWherePrompt({ unit: 'container', workspaceReadOnly: true, network: false })).toBe(
    `${WHERE_TEXTS.container} ${WHERE_TEXTS.workspaceReadOnly} ${WHERE_TEXTS.noNetwork}`,
  );
  expect(containerWherePrompt({ unit: 'pod', workspaceReadOnly: false, network: true })).toBe(WHERE_TEXTS.pod);
});

test('every line is quoted verbatim in docs/contract.md (model-visible strings)', () => {
  const contract = readFileSync(new URL('../../docs/contract.md', import.meta.url), 'utf8');
  for (const line of Object.values(WHERE_TEXTS)) expect(contract).toContain(`  ${line}\n`);
});

test('the local unconfined composition says nothing about where it runs: its prompt is unchanged', async () => {
  const host = await createHost(...localEnvironment({ workspace: ws.dir }));
  try {
    expect(whereOf(host)).toBeUndefined();
    expect(host.prompt().sections.map((section) => section.name)).toEqual(['tool:bash', 'tool:tasks']);
  } finally {
    await host.dispose();
  }
});

test('the sandboxed composition names its default mode, and no network when so; danger-full-access adds nothing', async () => {
  expect(await whereText(sandboxedEnvironment({ workspace: ws.dir }))).toBe(WHERE_TEXTS.sandboxReadOnly);
  expect(await whereText(sandboxedEnvironment({ workspace: ws.dir, sandbox: { mode: 'workspace-write', network: false } }))).toBe(
    `${WHERE_TEXTS.sandboxWorkspaceWrite} ${WHERE_TEXTS.noNetwork}`,
  );
  expect(await whereText(sandboxedEnvironment({ workspace: ws.dir, sandbox: { mode: 'danger-full-access' } }))).toBeUndefined();
});

test('the container composition: a container, the read-only workspace, and no network unless egress asks for one', async () => {
  const image = { image: TEST_IMAGE };
  expect(await whereText(containerEnvironment({ workspace: ws.dir, container: image }))).toBe(`${WHERE_TEXTS.container} ${WHERE_TEXTS.noNetwork}`);
  expect(await whereText(containerEnvironment({ workspace: ws.dir, container: image, sandbox: { mode: 'read-only' } }))).toBe(
    `${WHERE_TEXTS.container} ${WHERE_TEXTS.workspaceReadOnly} ${WHERE_TEXTS.noNetwork}`,
  );
  expect(await whereText(containerEnvironment({ workspace: ws.dir, container: { ...image, egress: 'internet' } }))).toBe(WHERE_TEXTS.container);
  expect(await whereText(containerEnvironment({ workspace: ws.dir, container: { ...image, network: 'none' } }))).toBe(`${WHERE_TEXTS.container} ${WHERE_TEXTS.noNetwork}`);
});

test("the Kubernetes composition: a pod, whose network is the cluster's (never claimed absent)", async () => {
  expect(await whereText(kubernetesEnvironment({ workspace: ws.dir, kubernetes: { image: TEST_IMAGE }, sandbox: { mode: 'read-only' } }))).toBe(
    `${WHERE_TEXTS.pod} ${WHERE_TEXTS.workspaceReadOnly}`,
  );
});

describeWithBwrap(`what the sandbox's lines say holds under bwrap${NEEDS_BWRAP}`, () => {
  it('read-only, no network: neither the workspace nor /tmp can be written, and only loopback exists', async () => {
    const host = await createHost(...sandboxedEnvironment({ workspace: ws.dir, sandbox: { network: false } }));
    try {
      expect(whereOf(host)!.text).toBe(`${WHERE_TEXTS.sandboxReadOnly} ${WHERE_TEXTS.noNetwork}`);
      const session = host.openSession({ cwd: ws.dir });
      const out = text(await session.call('bash', { command: 'touch here; echo "ws=$?"; touch /tmp/x; echo "tmp=$?"; tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " "', description: 'Probe' }));
      expect(out).toMatch(/ws=1/);
      expect(out).toMatch(/tmp=1/);
      expect(out).toMatch(/^lo$/m);
      expect(out).not.toMatch(/^(eth|en|wl)\w*$/m);
    } finally {
      await host.dispose();
    }
  });

  it('workspace-write: the workspace and /tmp can be written, the rest cannot', async () => {
    const host = await createHost(...sandboxedEnvironment({ workspace: ws.dir, sandbox: { mode: 'workspace-write' } }));
    try {
      expect(whereOf(host)!.text).toBe(WHERE_TEXTS.sandboxWorkspaceWrite);
      const session = host.openSession({ cwd: ws.dir });
      const out = text(await session.call('bash', { command: 'touch here; echo "ws=$?"; touch /tmp/x; echo "tmp=$?"; touch "$HOME/.dsh-where-probe"; echo "home=$?"', description: 'Probe' }));
      expect(out).toMatch(/ws=0/);
      expect(out).toMatch(/tmp=0/);
      expect(out).toMatch(/home=1/);
    } finally {
      await host.dispose();
    }
  });
});

describeWithEngine(`what the container's lines say holds in Docker${NEEDS_ENGINE}`, () => {
  it('read-only workspace: a write is refused; outside it, the container is writable', async () => {
    const dir = realpathSync(ws.dir);
    const host = await createHost(...containerEnvironment({ workspace: dir, container: { image: TEST_IMAGE }, sandbox: { mode: 'read-only' } }));
    try {
      expect(whereOf(host)!.text).toContain(WHERE_TEXTS.workspaceReadOnly);
      const session = host.openSession({ cwd: dir });
      const out = text(await session.call('bash', { command: 'touch here; echo "ws=$?"; touch /tmp/x; echo "tmp=$?"', description: 'Probe' }));
      expect(out).toMatch(/ws=1/);
      expect(out).toMatch(/tmp=0/);
      await session.dispose();
    } finally {
      await host.dispose();
    }
  });
});
