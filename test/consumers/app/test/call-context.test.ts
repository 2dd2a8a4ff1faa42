// The backend's call id, request id and tenant reach the consumer's tool and
// its env contributor through a real one-shot shell; the model's text and the
// command's environment get only what the contributor exports.
import 'reflect-metadata';
import { createHost, localEnvironment, type DshHost } from 'dsh-tools';
import { tmpdir } from 'node:os';
import { tenantModule } from '../src/tenant.js';

let host: DshHost;
beforeAll(async () => {
  host = await createHost(...localEnvironment({ workspace: tmpdir() }), tenantModule());
});
afterAll(() => host.dispose());

it("a custom tool sees the backend's call id, request id and tenant", async () => {
  const session = host.openSession({ cwd: tmpdir() });
  const result = await session.call('call_info', {}, { callId: 'call-1', requestId: 'req-9', metadata: { tenant: 'acme' } });
  expect(result.content[0]?.text).toBe('call call-1 for acme');
  expect(result.value).toEqual({ callId: 'call-1', requestId: 'req-9', tenant: 'acme', sameAsCurrent: true });
  await session.dispose();
});

it('an env contributor exports the tenant to the command, and nothing else of the call', async () => {
  const session = host.openSession({ cwd: tmpdir() });
  const options = { callId: 'call-2', metadata: { tenant: 'globex', token: 'secret-7f3a' } };
  const result = await session.call('bash', { command: 'echo "tenant=$DSH_TENANT"; env', description: 'Show the environment' }, options);
  const text = result.content[0]?.text ?? '';
  expect(text).toContain('tenant=globex');
  expect(text).not.toContain('secret-7f3a');
  expect(text).not.toContain('call-2');
  await session.dispose();
});

it('refuses bad metadata before anything runs, naming the key', async () => {
  const result = await host.call('call_info', {}, { metadata: { 'bad key': 'x' } });
  expect(result.isError).toBe(true);
  expect(result.content[0]?.text).toMatch(/^Error: invalid call metadata: .*bad key/);
});
