// Issue 23 items 5 and 7 in dsh-tools/testing: disposeAfterEach disposes what
// a test tracked (sessions before their host), and testingEnvironment mirrors
// the compositions' shell choice (task tools only beside the one-shot shell).
import { createHost, type DshHost, type HostSession } from '../../src/index.js';
import { approvalModule } from '../../src/index.js';
import { disposeAfterEach, InMemoryTerminal, ScriptedApprovalAnswerer, testingEnvironment } from '../../src/testing.js';

const text = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');

describe('disposeAfterEach', () => {
  const track = disposeAfterEach(afterEach);
  const order: string[] = [];
  let host: DshHost;
  let session: HostSession;

  it('returns what it tracks', async () => {
    host = track(await createHost(...testingEnvironment()));
    session = track(host.openSession({ id: 'tracked' }));
    const hostDispose = host.dispose.bind(host);
    const sessionDispose = session.dispose.bind(session);
    host.dispose = () => (order.push('host'), hostDispose());
    session.dispose = () => (order.push('session'), sessionDispose());
    expect(text(await session.call('bash', { command: 'true', description: 'Nothing' }))).toBe('(no output)');
  });

  it('disposed them after the previous test, the session before its host', () => {
    expect(order).toEqual(['session', 'host']);
    expect(() => host.prompt()).toThrow('the host is disposed');
  });
});

describe('testingEnvironment shells', () => {
  const track = disposeAfterEach(afterEach);
  const names = (host: DshHost) => host.prompt().tools.map((tool) => tool.name);

  it('persistent: no task tools; both: bash, bash_persistent and the task tools', async () => {
    expect(names(track(await createHost(...testingEnvironment({ shell: 'persistent' }))))).toEqual(['bash']);
    const both = track(await createHost(...testingEnvironment({ shell: 'both' })));
    expect(names(both)).toEqual(['bash', 'bash_persistent', 'task_kill', 'task_list', 'task_output']);
    const session = track(both.openSession({ cwd: '/repo' }));
    expect(text(await session.call('bash_persistent', { command: 'cd sub' }))).toBe('(no output)');
  });

  it('both: the waiting-for-input notice names bash_persistent, the tool the input must go through', async () => {
    const terminal = new InMemoryTerminal(() => ({ output: 'name? ', end: { kind: 'waiting-for-input' } }));
    const both = track(await createHost(...testingEnvironment({ shell: 'both', terminal })));
    const waiting = text(await track(both.openSession({ cwd: '/repo' })).call('bash_persistent', { command: 'read name' }));
    expect(waiting).toBe(
      "name? \n[waiting for input: the command is still running and reading the terminal; your next bash_persistent call's text is sent to it as one line of input (^C interrupts it, ^D sends end-of-file)]",
    );
  });
});

describe('approvals in testingEnvironment (docs/embedding.md)', () => {
  const track = disposeAfterEach(afterEach);

  it('takes approval settings and answerers; the answerer sees the typed request', async () => {
    const answerer = new ScriptedApprovalAnswerer(['rejected']);
    const host = track(
      await createHost(...testingEnvironment({ approval: { rules: [{ match: 'git push', action: 'ask' }] }, answerers: [answerer] })),
    );
    const result = await track(host.openSession({ cwd: '/repo' })).call('bash', { command: 'git push', description: 'Publish' });
    expect(result.isError).toBe(true);
    expect(answerer.requests[0]).toMatchObject({ kind: 'command', tool: 'bash', command: 'git push' });
  });

  it('refuses a second approvalModule with the single-provider error the guide quotes', async () => {
    await expect(createHost(...testingEnvironment(), approvalModule({}))).rejects.toThrow(
      'failed to load plugin "approval:local": plugin "approval:local" binds a second provider for ApprovalService, which takes exactly one',
    );
  });
});
