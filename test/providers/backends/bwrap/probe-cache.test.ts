import { ProbeCache } from '../../../../src/providers/backends/bwrap/probe-cache.js';

/** A probe that answers from a script of results and counts its runs. */
function scripted(results: Array<string | null>): { probe: () => string | null; runs: () => number } {
  let runs = 0;
  return {
    probe: () => results[Math.min(runs++, results.length - 1)]!,
    runs: () => runs,
  };
}

describe('ProbeCache', () => {
  it('keeps a success for good', () => {
    const probe = scripted([null, 'broken']);
    const cache = new ProbeCache(probe.probe);
    expect(cache.reason()).toBeNull();
    expect(cache.reason()).toBeNull();
    expect(probe.runs()).toBe(1);
  });

  it('asks a failure once more at once and takes the second answer', () => {
    const probe = scripted(['passing cause', null]);
    const cache = new ProbeCache(probe.probe);
    expect(cache.reason()).toBeNull();
    expect(probe.runs()).toBe(2);
  });

  it('holds a repeated failure for its window, then probes again', () => {
    let now = 1_000;
    const probe = scripted(['no namespaces', 'no namespaces', 'no namespaces', null]);
    const cache = new ProbeCache(probe.probe, 5_000, () => now);
    expect(cache.reason()).toBe('no namespaces');
    now += 4_999;
    expect(cache.reason()).toBe('no namespaces');
    expect(probe.runs()).toBe(2);
    now += 1;
    expect(cache.reason()).toBeNull();
    expect(probe.runs()).toBe(4);
  });
});
