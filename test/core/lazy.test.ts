import { lazy } from '../../src/core/lazy.js';

describe('lazy', () => {
  it('loads on first use only, once, and shares the result', async () => {
    let loads = 0;
    const value = lazy(async () => ({ n: ++loads }));
    expect(loads).toBe(0);
    const [a, b] = await Promise.all([value(), value()]);
    expect(a).toBe(b);
    expect(await value()).toBe(a);
    expect(loads).toBe(1);
  });

  it('tries again after a failed load', async () => {
    let loads = 0;
    const value = lazy(async () => {
      loads += 1;
      if (loads === 1) throw new Error('not yet');
      return loads;
    });
    await expect(value()).rejects.toThrow('not yet');
    await expect(value()).resolves.toBe(2);
  });
});
