// Where a composition runs commands is declared by its modules, not guessed
// from which providers are bound: the outermost declared site wins, and an
// embedder's own backend declares its site the same way.
import { createHost, ExecutionSite, executionSiteOf, localEnvironment, PluginModule, type DshHost } from '../../src/index.js';
import { observerModule, RecordingObserver, tempDir } from '../support/observability-kit.js';

test('the outermost declared site wins; none declared is local', () => {
  expect(executionSiteOf([])).toBe('local');
  expect(executionSiteOf(['sandbox'])).toBe('sandbox');
  expect(executionSiteOf(['sandbox', 'container'])).toBe('container');
  expect(executionSiteOf(['local', 'sandbox'])).toBe('sandbox');
});

describe('call events carry the declared site', () => {
  let host: DshHost | undefined;
  const tmp = tempDir('execution-site-');
  afterEach(async () => {
    await host?.dispose();
    host = undefined;
  });
  afterAll(() => tmp.remove());

  async function modeOfOneCall(...extra: PluginModule[]): Promise<string | undefined> {
    const recording = new RecordingObserver();
    host = await createHost(...localEnvironment({ workspace: tmp.dir }), observerModule(recording), ...extra);
    await host.openSession({ cwd: tmp.dir }).call('bash', { command: 'true', description: 'Nothing' });
    return recording.ends.at(-1)?.mode;
  }

  it('a local composition declares nothing: local', async () => {
    expect(await modeOfOneCall()).toBe('local');
  });

  it("an embedder's module that declares its site is believed (no provider of ours needs to be bound)", async () => {
    expect(await modeOfOneCall(new PluginModule('site:mine', ({ bind }) => void bind(ExecutionSite).toConstantValue('container')))).toBe('container');
  });
});
