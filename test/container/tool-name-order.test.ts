// Tools are listed in `localeCompare` order; the comparator skips ICU's
// collator only where the result is the same (plain names, an English, C or
// POSIX locale).
import fc from 'fast-check';
import { codePointOrderHolds, toolNameOrder } from '../../src/container/tool-name-order.js';

const sign = (n: number) => Math.sign(n);

describe('toolNameOrder', () => {
  it.each([
    [{}],
    [{ LANG: 'C.UTF-8' }],
    [{ LANG: 'en_US.UTF-8', LC_ALL: 'POSIX' }],
    [{ LANG: 'en_GB.UTF-8', LC_MESSAGES: 'C' }],
    [{ LANG: '' }],
    [{ LC_ALL: 'en' }],
  ])('orders by code point under %j', (env) => {
    expect(codePointOrderHolds(env)).toBe(true);
  });

  it.each([
    [{ LANG: 'da_DK.UTF-8' }],
    [{ LANG: 'en_US.UTF-8', LC_MESSAGES: 'cs_CZ.UTF-8' }],
    [{ LC_ALL: 'lt_LT', LANG: 'C' }],
    [{ LANG: 'en_US@collation=phonebook' }],
    [{ LANG: 'en_US_POSIX' }],
  ])('leaves the order to localeCompare under %j', (env) => {
    expect(codePointOrderHolds(env)).toBe(false);
  });

  it('agrees with localeCompare on plain names and on any others, under this process\'s locale', () => {
    const order = toolNameOrder();
    const plain = fc.stringMatching(/^[a-z_]{0,8}$/);
    const any = fc.stringMatching(/^[A-Za-z0-9_\-.äß]{0,8}$/);
    for (const names of [plain, any]) {
      fc.assert(fc.property(names, names, (a, b) => sign(order(a, b)) === sign(a.localeCompare(b))), { numRuns: 5000 });
    }
    expect(['task_list', 'bash_persistent', 'bash', 'task_kill', 'Zeta', 'task_output'].sort(order)).toEqual(
      ['task_list', 'bash_persistent', 'bash', 'task_kill', 'Zeta', 'task_output'].sort((a, b) => a.localeCompare(b)),
    );
  });

  it('goes through localeCompare when the locale does not qualify', () => {
    const order = toolNameOrder({ LANG: 'da_DK.UTF-8' });
    const compared: string[] = [];
    const original = String.prototype.localeCompare;
    String.prototype.localeCompare = function (this: string, that: string) {
      compared.push(`${this}/${that}`);
      return original.call(this, that);
    };
    try {
      expect(sign(order('aa', 'b'))).toBe(sign(original.call('aa', 'b')));
    } finally {
      String.prototype.localeCompare = original;
    }
    expect(compared).toEqual(['aa/b']);
  });
});
