// `serve --console` settings: flags over the file's `serve:` keys, and the combinations that
// cannot work refused at start with a clear error.
import { consoleSettings } from '../../src/cli/console-options.js';

describe('console settings', () => {
  it('is off unless --console or serve.console says on', () => {
    expect(consoleSettings({}, undefined, true)).toBeUndefined();
    expect(consoleSettings({}, { operatorTokenFile: '/f' }, true)).toBeUndefined();
    expect(consoleSettings({}, { console: false, operatorTokenFile: '/f' }, true)).toBeUndefined();
  });

  it('takes the flags over the file', () => {
    expect(consoleSettings({ console: true, operatorTokenFile: '/flag' }, { operatorTokenFile: '/file' }, true)).toEqual({ tokenFile: '/flag' });
    expect(consoleSettings({}, { console: true, operatorTokenFile: '/file' }, true)).toEqual({ tokenFile: '/file' });
    expect(consoleSettings({ operatorTokenFile: '/flag' }, { console: true }, true)).toEqual({ tokenFile: '/flag' });
  });

  it('refuses a console without HTTP, without operator tokens, and operator tokens without a console', () => {
    expect(() => consoleSettings({ console: true, operatorTokenFile: '/f' }, undefined, false)).toThrow('--console applies to --http only');
    expect(() => consoleSettings({ console: true }, undefined, true)).toThrow(
      '--console needs --operator-token-file <path> (or serve.operatorTokenFile): the console takes operator tokens only',
    );
    expect(() => consoleSettings({ operatorTokenFile: '/f' }, undefined, true)).toThrow('--operator-token-file applies to --console only');
  });
});
