import { ptyShells } from '../support/pty-shells.js';

// A function shadowing `printf` (not a special builtin) or `builtin` sees
// the frame's printf-channel marker writes; the prompt channel, written by
// bash itself, still frames every call, and whatever the function prints,
// no frame byte may reach a result (issue 33 item 5).

const { open, send } = ptyShells('dsh-printf-shadow-');

/** Rewrites of the marker writes an attacker's function might make. */
const SHADOWS: readonly string[] = [
  // Same markers, another nonce.
  `printf() { local a=("$@"); [ "\${#a[@]}" -ge 2 ] && a[1]=0123456789abcdef; builtin printf "\${a[@]}"; }`,
  // The format doubled: the marker twice, with text between.
  `printf() { local a=("$@"); a[0]="\${a[0]}X\${a[0]}"; builtin printf "\${a[@]}"; }`,
  // A marker-looking prefix and a status that is not ours.
  `printf() { builtin printf '\\037E%s:7\\037\\037Sdead\\037'; builtin printf "$@"; }`,
  // \`builtin\` itself shadowed, readonly so it cannot be removed.
  `builtin() { command builtin "$@"; command printf '\\037Sfeed\\037\\037E%s:9\\037' x; }; readonly -f builtin`,
];

describe('a shadowed printf or builtin cannot leak frame bytes (real PTY)', () => {
  it.each(SHADOWS)('after %s, the next calls read clean', async (shadow) => {
    const shell = await open();
    await send(shell, shadow);
    for (const [command, output, exitCode] of [
      ['echo next-ok', 'next-ok\n', 0],
      ['echo two; (exit 5)', 'two\n', 5],
      ["command printf 'x\\n'", 'x\n', 0],
    ] as const) {
      const result = await send(shell, command);
      // What the shadowing function prints itself around a marker (the doubled format's `X`) is its output;
      // the frame's own bytes never are.
      expect(result.end).toEqual({ kind: 'completed', exitCode });
      expect(result.output.endsWith(output)).toBe(true);
      expect(result.output).not.toMatch(/\x1f/);
    }
  });

  it('with printf and builtin both spied on, calls still end on the prompt channel with their own output and status', async () => {
    const shell = await open();
    const spy = (name: string) => `${name}() { echo ${name} >> "$PWD/reached"; command ${name} "$@"; }`;
    await send(shell, `rm -f reached; ${spy('printf')}; ${spy('builtin')}`);
    expect(await send(shell, 'echo next-ok')).toMatchObject({ output: 'next-ok\n', end: { kind: 'completed', exitCode: 0 } });
    expect(await send(shell, 'echo two; (exit 5)')).toMatchObject({ output: 'two\n', end: { kind: 'completed', exitCode: 5 } });
  });

  it('marker-shaped bytes are dropped from a result, a lone unit separator is kept', async () => {
    const shell = await open();
    const result = await send(shell, String.raw`printf 'a\037b\n'; printf '\037S0123\037\n'`);
    expect(result.end).toEqual({ kind: 'completed', exitCode: 0 });
    expect(result.output).toBe('a\x1fb\n\n');
  });
});
