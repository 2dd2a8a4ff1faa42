// createHost warms up what the first call would wait for: a command policy's
// `warmUp()` (the built-in one loads the bash parser of its rules) runs once
// at createHost when a tool reaches the policy, and not when none does.
import { CommandPolicy, createHost, localEnvironment, replace, type DshHost } from '../../src/index.js';
import { LocalCommandPolicy } from '../../src/providers/policy/approval/local-command-policy.js';

const hosts: DshHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.dispose()));
});

function countingPolicy() {
  const policy = { warmUps: 0, check: async () => ({ allowed: true as const }), warmUp: async () => void (policy.warmUps += 1) };
  return policy;
}

it('createHost runs the command policy warm-up once when a tool reaches the policy', async () => {
  const policy = countingPolicy();
  hosts.push(await createHost(...localEnvironment({ workspace: '/tmp' }), replace(CommandPolicy, policy)));
  expect(policy.warmUps).toBe(1);
});

it('no tool reaching the policy: nothing is warmed up', async () => {
  const policy = countingPolicy();
  hosts.push(await createHost(replace(CommandPolicy, policy)));
  expect(policy.warmUps).toBe(0);
});

it('the built-in policy warms up without rules too, and its first check after it still judges the rules', async () => {
  await new LocalCommandPolicy({}).warmUp();
  const policy = new LocalCommandPolicy({ rules: [{ match: 'rm', action: 'deny' }] });
  await policy.warmUp();
  expect(await policy.check({ tool: 'bash', command: 'echo ok && rm -f x', callId: 'c' })).toEqual({ allowed: false, message: 'command denied by policy: rm' });
});
