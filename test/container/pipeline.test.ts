import fc from 'fast-check';
import { DshHost } from '../../src/container/dsh-host.js';
import { PluginModule } from '../../src/core/plugin-module.js';
import { bindTool } from '../../src/core/contributions.js';
import { BoomTool, echoToolModule, recorderModule, type Recorder } from '../support/echo-tool.js';

describe('invocation pipeline', () => {
  const recorder: Recorder = { seen: [], disposed: 0 };
  const host = new DshHost();
  beforeAll(() =>
    host.load(
      echoToolModule(),
      recorderModule(recorder),
      new PluginModule('tools:boom', ({ bind }) => bindTool(bind, BoomTool)),
    ),
  );
  beforeEach(() => recorder.seen.splice(0));
  afterAll(() => host.dispose());

  const text = (result: { content: { text: string }[] }) => result.content.map((c) => c.text).join('');

  it('answers an unknown tool with a stable error', async () => {
    expect(await host.call('nope', {})).toEqual({
      content: [{ type: 'text', text: 'Error: unknown tool "nope"' }],
      isError: true,
    });
  });

  it('turns a validation failure into a single Error text block with isError', async () => {
    const result = await host.call('echo', { text: '' });
    expect(result).toEqual({
      content: [{ type: 'text', text: 'Error: invalid text: expected a non-empty string' }],
      isError: true,
    });
    expect(recorder.seen).toEqual([]);
  });

  it('rejects a number given as a string instead of coercing it', async () => {
    const result = await host.call('echo', { text: 'a', times: '3' });
    expect(text(result)).toBe('Error: invalid times: expected a number');
    expect(result.isError).toBe(true);
    expect(recorder.seen).toEqual([]);
  });

  it('rejects an unknown key, naming the valid ones, before the tool sees anything', async () => {
    const result = await host.call('echo', { text: 'a', times: 2, rm: '-rf /' });
    expect(result).toEqual({
      content: [{ type: 'text', text: 'Error: unknown argument "rm" for echo; valid arguments: text, times' }],
      isError: true,
    });
    const polluting = JSON.parse('{"text":"a","__proto__":{"polluted":true}}') as unknown;
    expect(text(await host.call('echo', polluting))).toBe('Error: unknown argument "__proto__" for echo; valid arguments: text, times');
    expect(recorder.seen).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(text(await host.call('echo', { text: 'a', times: 2 }))).toBe('aa');
  });

  it('says additionalProperties: false in every schema', () => {
    for (const tool of host.tools()) expect(tool.inputSchema.additionalProperties).toBe(false);
  });

  it('rejects arguments that are not an object', async () => {
    for (const args of [[1], 'text', 7, true]) {
      expect(text(await host.call('echo', args))).toBe('Error: invalid arguments: expected a JSON object');
    }
  });

  it.each([
    ['string', 'Error: plain string failure'],
    ['object', 'Error: {"code":42}'],
    ['reject', 'Error: rejected later'],
    ['error', 'Error: already prefixed'],
  ] as const)('normalizes a tool that fails with a %s', async (mode, expected) => {
    BoomTool.mode = mode;
    const result = await host.call('boom', {});
    expect(result).toEqual({ content: [{ type: 'text', text: expected }], isError: true });
  });

  it('answers a pre-aborted call with the abort error and does not run the tool', async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await host.call('echo', { text: 'a' }, { signal: controller.signal });
    expect(text(result)).toBe('Error: tool call aborted');
    expect(recorder.seen).toEqual([]);
  });

  it('only ever yields results for fuzzed argument objects (no throw, no crash)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.anything(), fc.dictionary(fc.string(), fc.anything())), async (args) => {
        const result = await host.call('echo', args);
        expect(Array.isArray(result.content)).toBe(true);
        if (result.isError) expect(result.content[0]!.text).toMatch(/^Error: /);
      }),
      { numRuns: 300 },
    );
  });
});
