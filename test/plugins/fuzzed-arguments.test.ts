// docs/contract.md §6: fuzzed argument objects only ever yield results (never a throw,
// never an unhandled rejection), for every tool of the default compositions.
import fc from 'fast-check';
import { createHost, type DshHost } from '../../src/index.js';
import { testingEnvironment } from '../../src/testing.js';

const argValue = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }),
);
const knownKeys = fc.constantFrom(
  'command',
  'description',
  'timeoutMs',
  'workdir',
  'run_in_background',
  'sandbox_permissions',
  'justification',
  'task_id',
  'wait',
  'timeout_ms',
  'reason',
  '__proto__',
  'constructor',
);
const argsObject = fc.oneof(
  fc.dictionary(fc.oneof(knownKeys, fc.string()), argValue, { maxKeys: 6 }),
  fc.anything(),
);

describe.each(['oneshot', 'persistent'] as const)('fuzzed arguments (%s shell)', (shell) => {
  let host: DshHost;
  let unhandled: unknown[];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  beforeAll(async () => {
    host = await createHost(...testingEnvironment({ shell }));
    unhandled = [];
    process.on('unhandledRejection', onUnhandled);
  });
  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    await host.dispose();
  });

  it('yields a result for every tool and every argument object', async () => {
    const session = host.openSession({ cwd: '/fuzz' });
    const tools = host.tools().map((tool) => tool.name).sort();
    // A persistent-only host starts no task, so it mounts no task tools.
    expect(tools).toEqual(shell === 'persistent' ? ['bash'] : ['bash', 'task_kill', 'task_list', 'task_output']);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...tools), argsObject, async (tool, args) => {
        const result = await session.call(tool, args);
        expect(Array.isArray(result.content)).toBe(true);
        expect(result.content.length).toBeGreaterThan(0);
        if (result.isError) expect(result.content[0]!.text).toMatch(/^Error: \S/);
      }),
      { numRuns: 400 },
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
  });
});
