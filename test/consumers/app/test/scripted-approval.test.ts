// Approvals in a unit test: the testing environment's approval service with
// a scripted answerer, over the scripted executor.
import 'reflect-metadata';
import { createHost } from 'dsh-tools';
import { ScriptedApprovalAnswerer, testingEnvironment } from 'dsh-tools/testing';

it('asks the scripted answerer about a command rule and refuses on its answer', async () => {
  const answerer = new ScriptedApprovalAnswerer(['rejected']);   // answers in order; then passes (undefined)
  const host = await createHost(...testingEnvironment({
    approval: { rules: [{ match: 'git push', action: 'ask' }] },
    answerers: [answerer],
  }));
  try {
    const result = await host.openSession({ cwd: '/repo' }).call('bash', { command: 'git push', description: 'Publish' });
    expect(result.content[0]?.text).toBe('Error: command rejected by the user');
    expect(answerer.requests[0]).toMatchObject({ kind: 'command', command: 'git push' });
  } finally {
    await host.dispose();
  }
});
