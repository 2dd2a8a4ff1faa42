import { validateArgs as validateWith } from '../../../src/core/arg-validation.js';
import { argsSchema, argumentNames } from '../../../src/core/tool-schema.js';
import { PersistentBashArgs } from '../../../src/tools/persistent-bash/persistent-bash-args.js';
import {
  RESTARTED_NOTICE,
  WAITING_NOTICE,
} from '../../../src/tools/persistent-bash/persistent-bash-render.js';
import { harness, type Harness } from './persistent-bash-fixture.js';

/** The host's argument validation with the names the persistent bash schema shows. */
function validateArgs(cls: typeof PersistentBashArgs, raw: unknown): PersistentBashArgs {
  return validateWith(cls, raw, { tool: 'bash', names: argumentNames(argsSchema(cls)) });
}

let h: Harness;

beforeEach(async () => {
  h = await harness();
});
afterEach(() => h.dispose());

// A lost frame on every backend: test/contract/persistent-contract.ts.
describe('PersistentBashTool recovery (real PTY)', () => {
  it('restart: true runs the command in a fresh shell at the workspace, whatever the old one did', async () => {
    const s = h.session('s');
    await h.text(s, "cd /tmp; export OLD=1; function eval(){ echo EVIL; }; alias eval='echo X #'");
    const result = await h.callWith(s, { command: 'pwd; echo "${OLD-unset}"; type -t eval', restart: true });
    expect(result.content[0]!.text).toBe(`${RESTARTED_NOTICE}\n${h.workspace}\nunset\nbuiltin`);
    expect(await h.text(s, 'pwd')).toBe(h.workspace);
  });

  it('restart: true discards a command that waits for input instead of typing into it', async () => {
    const s = h.session('s');
    expect(await h.text(s, 'read x; echo "got $x"')).toBe(WAITING_NOTICE);
    expect(await h.callWith(s, { command: 'echo fresh', restart: true })).toMatchObject({
      content: [{ text: `${RESTARTED_NOTICE}\nfresh` }],
    });
  });

  it('validates restart as a boolean and refuses a NUL in the command as the one-shot shell does', () => {
    expect(validateArgs(PersistentBashArgs, { command: 'ls', restart: true })).toMatchObject({ restart: true });
    for (const restart of ['true', 1, 'false']) {
      expect(() => validateArgs(PersistentBashArgs, { command: 'ls', restart })).toThrow('invalid restart: expected a boolean');
    }
    expect(() => validateArgs(PersistentBashArgs, { command: 'echo a\0; rm -rf x' })).toThrow(
      'invalid command: contains a NUL character',
    );
    expect(() => validateArgs(PersistentBashArgs, { command: ' ' })).toThrow('invalid command: expected a non-empty string');
    expect(() => validateArgs(PersistentBashArgs, { command: 3 })).toThrow('invalid command: expected a non-empty string');
  });
});
