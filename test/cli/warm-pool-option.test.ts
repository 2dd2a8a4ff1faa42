// `serve --warm-pool <n>`: over the engine section's warmPool, refused where no engine runs the sessions.
import { Command } from 'commander';
import { addWarmPoolOption, withWarmPool } from '../../src/cli/warm-pool-option.js';

const parse = (value: string): unknown => addWarmPoolOption(new Command().exitOverride().configureOutput({ writeErr: () => undefined })).parse(['--warm-pool', value], { from: 'user' }).opts().warmPool;

describe('--warm-pool', () => {
  it('takes a whole number from 0 to 32', () => {
    expect(parse('0')).toBe(0);
    expect(parse('32')).toBe(32);
    for (const bad of ['33', '-1', '1.5', 'two', '']) expect(() => parse(bad)).toThrow('expected a whole number from 0 to 32');
  });

  it('sets the engine section over the file, and leaves a composition alone without it', () => {
    const container = { workspace: '/w', container: { image: 'i', warmPool: 1 } };
    expect(withWarmPool(container, { warmPool: 3 })).toEqual({ workspace: '/w', container: { image: 'i', warmPool: 3 } });
    expect(withWarmPool({ kubernetes: { image: 'k' } }, { warmPool: 2 })).toEqual({ kubernetes: { image: 'k', warmPool: 2 } });
    expect(withWarmPool(container, {})).toBe(container);
  });

  it('is refused without an engine', () => {
    expect(() => withWarmPool({ workspace: '/w' }, { warmPool: 2 })).toThrow("--warm-pool needs --container or --kubernetes: only an engine's sandboxes can be started ahead");
  });
});
