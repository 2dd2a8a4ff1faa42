import { assignmentConcern, baseName, type CommandAnalysis, type CommandWord } from './command-words.js';
import { skipOptions, type OptionSpec } from './wrapper-options.js';

type Words = readonly CommandWord[];
/** What a wrapper runs: the wrapped commands (none when it runs nothing), or why that cannot be told. */
type Inner = { readonly commands: readonly Words[] } | { readonly unknown: string };

/** Commands whose arguments (or input) become commands the checker cannot see. */
const OPAQUE: Record<string, string> = {
  eval: 'runs its arguments as shell code',
  source: "runs a file's commands",
  '.': "runs a file's commands",
  trap: 'sets shell code to run later',
  alias: 'defines text that later replaces a command name',
  fc: 're-runs commands from the history',
  history: 'can put commands into the history that fc then runs',
  enable: 'loads or disables builtins',
  bind: 'binds shell code to keys',
  let: 'evaluates arithmetic, which can run commands through variable values',
  hash: 'can map a command name to another program',
  su: 'runs a shell', sg: 'runs a shell', newgrp: 'runs a shell', runuser: 'runs a shell or a command line',
  watch: 'runs its arguments through a shell', script: 'runs a shell or a command line', expect: 'runs a script',
  at: 'reads commands from input', batch: 'reads commands from input', crontab: 'installs commands to run later',
  parallel: 'runs its arguments through a shell', flock: 'runs a command or shell text', chroot: 'runs a command in another root',
  nsenter: 'runs a command in other namespaces', unshare: 'runs a command in new namespaces', setpriv: 'runs a command',
  chrt: 'runs a command', taskset: 'runs a command', ionice: 'runs a command', 'systemd-run': 'runs a command',
  busybox: 'runs any applet, shells included', strace: 'runs a command', ltrace: 'runs a command', gdb: 'runs programs',
  tmux: 'runs shell commands', screen: 'runs shell commands', ssh: 'runs a remote command line',
};

const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'csh', 'tcsh', 'fish', 'rbash', 'yash', 'posh', 'pdksh', 'oksh']);

/** Keywords that can only appear as a command name when the parser misread the line. */
const MISREAD_NAMES = new Set(['{', '}', '(', ')', '!', '[[', ']]', 'then', 'do', 'done', 'fi', 'esac', 'elif', 'else', 'in', 'function', 'if', 'while', 'until', 'for', 'case', 'select']);

const TRANSPARENT: Record<string, (args: Words) => Inner> = {
  time: (args) => unwrap('time', args, { flags: 'p' }),
  // `command -v name` only looks the name up.
  command: (args) => unwrap('command', args, { flags: 'pvV' }, (flags) => flags.some((flag) => /[vV]/.test(flag))),
  builtin: (args) => after(args, 0),
  exec: (args) => unwrap('exec', args, { flags: 'cl', values: 'a' }),
  nohup: (args) => unwrap('nohup', args, {}),
  nice: (args) => unwrap('nice', args, { values: 'n', longValues: ['--adjustment'], numeric: true }),
  timeout: (args) => {
    const spec = { flags: 'v', values: 'sk', longFlags: ['--foreground', '--preserve-status', '--verbose'], longValues: ['--signal', '--kill-after'] };
    const options = skipOptions('timeout', args, spec);
    // The duration comes before the command.
    return 'unknown' in options ? options : after(args, options.start + 1);
  },
  stdbuf: (args) => unwrap('stdbuf', args, { values: 'ioe', longValues: ['--input', '--output', '--error'] }),
  setsid: (args) => unwrap('setsid', args, { flags: 'cfw', longFlags: ['--ctty', '--fork', '--wait'] }),
  env: (args) => unwrapEnv(args),
  coproc: (args) =>
    args.some((word) => word.literal !== undefined && MISREAD_NAMES.has(word.literal))
      ? { unknown: '`coproc` with a compound command is not parsed' }
      : after(args, 0),
};

const SUDO: OptionSpec = {
  flags: 'AbEeHiKklnPSsVv',
  values: 'ugCDhprtTUR',
  longFlags: ['--askpass', '--background', '--bell', '--edit', '--help', '--set-home', '--login', '--remove-timestamp', '--reset-timestamp', '--list', '--non-interactive', '--preserve-groups', '--shell', '--stdin', '--version', '--validate'],
  longValues: ['--user', '--group', '--close-from', '--chdir', '--host', '--prompt', '--role', '--type', '--command-timeout', '--other-user', '--chroot'],
  longAttached: ['--preserve-env'],
};

const XARGS: OptionSpec = {
  flags: '0prtx',
  values: 'adEILnPs',
  attached: 'eil',
  longFlags: ['--null', '--interactive', '--no-run-if-empty', '--verbose', '--exit', '--open-tty', '--show-limits'],
  longValues: ['--arg-file', '--delimiter', '--max-args', '--max-procs', '--max-chars', '--process-slot-var'],
  longAttached: ['--replace', '--eof', '--max-lines'],
};

const JUDGED_WRAPPERS: Record<string, (args: Words) => Inner> = {
  sudo: (args) => privileged('sudo', args, SUDO),
  doas: (args) => privileged('doas', args, { flags: 'ns', values: 'uC' }),
  // With no command xargs runs echo.
  xargs: (args) => unwrap('xargs', args, XARGS),
  find: (args) => findExec(args),
};

/**
 * Expands one simple command into what it runs: the command itself, and for a
 * wrapper (`sudo`, `env`, `xargs`, `find -exec`, …) the command it wraps,
 * judged too. Transparent wrappers (`command`, `exec`, `time`, `nice`, …) are
 * judged only by what they wrap. Anything that turns text into commands
 * (`eval`, shells, `source`, …) or a name that is not a literal word is
 * unknown.
 */
export function expandCommand(words: Words): CommandAnalysis {
  const commands: Words[] = [];
  const unknown: string[] = [];
  visit(words, commands, unknown);
  return { commands, unknown };
}

function visit(words: Words, commands: Words[], unknown: string[]): void {
  const name = words[0];
  if (name === undefined) return;
  if (name.literal === undefined) return void unknown.push(`the command name \`${name.source}\` is not a literal word`);
  if (name.expands) return void unknown.push(`the command name \`${name.source}\` expands (glob, brace or ~)`);
  if (MISREAD_NAMES.has(name.literal)) return void unknown.push(`\`${name.literal}\` where a command name should be (the line is not valid bash)`);
  const base = baseName(name.literal);
  const args = words.slice(1);
  const opaque = SHELLS.has(base) ? 'runs commands the checker cannot see (a script, -c text or its input)' : own(OPAQUE, base);
  if (opaque !== undefined) {
    // Still judged, so a deny rule that names it applies.
    commands.push(words);
    return void unknown.push(`\`${base}\` ${opaque}`);
  }
  const concern = builtinConcern(base, args);
  if (concern !== undefined) unknown.push(concern);
  const transparent = own(TRANSPARENT, base);
  const wrapper = transparent ?? own(JUDGED_WRAPPERS, base);
  if (!wrapper) return void commands.push(words);
  if (!transparent) commands.push(words);
  const inner = wrapper(args);
  if ('unknown' in inner) {
    if (transparent) commands.push(words);
    return void unknown.push(inner.unknown);
  }
  if (inner.commands.length === 0 && transparent) commands.push(words);
  for (const command of inner.commands) visit(command, commands, unknown);
}

/** A table entry by command name; a name like `constructor` must not find Object's prototype. */
function own<T>(table: Record<string, T>, name: string): T | undefined {
  return Object.hasOwn(table, name) ? table[name] : undefined;
}

/** The command after `wrapper`'s options; none when `runsNothing(flags)` (e.g. `command -v`). */
function unwrap(wrapper: string, args: Words, spec: OptionSpec, runsNothing?: (flags: string[]) => boolean): Inner {
  const options = skipOptions(wrapper, args, spec);
  if ('unknown' in options) return options;
  return runsNothing?.(options.flags) ? none() : after(args, options.start);
}

function after(args: Words, start: number): Inner {
  return start >= args.length ? none() : { commands: [args.slice(start)] };
}

function none(): Inner {
  return { commands: [] };
}

/** `env [options] [NAME=value]… [command]`; `-S` splits a string into a command, which is not followed. */
function unwrapEnv(args: Words): Inner {
  const spec = { flags: 'i0v', values: 'uC', longFlags: ['--ignore-environment', '--null', '--debug'], longValues: ['--unset', '--chdir'] };
  if (args.some((word) => /^(?:-[a-zA-Z0-9]*S|--split-string)/.test(word.literal ?? ''))) return { unknown: '`env -S` splits text into a command' };
  const options = skipOptions('env', args, spec);
  if ('unknown' in options) return options;
  let i = options.start;
  for (; i < args.length; i += 1) {
    const text = args[i]!.literal;
    if (text === undefined) return { unknown: `\`env\` argument \`${args[i]!.source}\` is not a literal word` };
    if (!/^[^=]+=/.test(text)) break;
    const concern = assignmentConcern(text.slice(0, text.indexOf('=')));
    if (concern !== undefined) return { unknown: concern };
  }
  return after(args, i);
}

function privileged(name: string, args: Words, spec: OptionSpec): Inner {
  const options = skipOptions(name, args, spec);
  if ('unknown' in options) return options;
  if (options.flags.some((flag) => /^-[a-zA-Z]*[si]/.test(flag) || flag === '--shell' || flag === '--login')) {
    return { unknown: `\`${name}\` with a shell option runs a shell or shell text` };
  }
  return after(args, options.start);
}

/** `find … -exec cmd {} ;` (and -execdir, -ok, -okdir): each runs the words up to `;` or `+`. */
function findExec(args: Words): Inner {
  const commands: Words[] = [];
  for (let i = 0; i < args.length; i += 1) {
    if (!/^-(exec|execdir|ok|okdir)$/.test(args[i]!.literal ?? '')) continue;
    let end = i + 1;
    while (end < args.length && args[end]!.literal !== ';' && args[end]!.literal !== '+') end += 1;
    commands.push(args.slice(i + 1, end));
    i = end;
  }
  return { commands };
}

/** Builtins that take variable names: a subscript or expansion there is evaluated, and can run commands. */
function builtinConcern(base: string, args: Words): string | undefined {
  const namesVariables = ['declare', 'typeset', 'local', 'export', 'readonly', 'unset', 'read', 'getopts', 'mapfile', 'readarray', 'wait', 'printf', 'test', '[', 'complete', 'compgen'];
  if (!namesVariables.includes(base)) return undefined;
  if (base === 'printf' && !args.some((word) => word.literal === '-v')) return undefined;
  if ((base === 'test' || base === '[') && !args.some((word) => word.literal === '-v' || word.literal === '-R')) return undefined;
  if ((base === 'mapfile' || base === 'readarray') && args.some((word) => /^-[a-zA-Z]*C/.test(word.literal ?? ''))) return `\`${base} -C\` runs shell code`;
  if (base === 'complete' || base === 'compgen') {
    return args.some((word) => /^-[a-zA-Z]*[CF]/.test(word.literal ?? word.source)) ? `\`${base} -C\`/\`-F\` runs a command or function` : undefined;
  }
  for (const word of args) {
    if (word.assigns !== undefined) {
      if (word.assigns.includes('[')) return `\`${base}\` assigns a subscripted name \`${word.assigns}\` (its index can run commands)`;
      const concern = assignmentConcern(word.assigns);
      if (concern !== undefined) return concern;
      continue;
    }
    const text = word.literal;
    if (text === undefined) return `\`${base}\` is given a name through \`${word.source}\` (an expanded name can run commands)`;
    if (['declare', 'typeset', 'local'].includes(base) && /^[-+][a-zA-Z]*[in]/.test(text)) return `\`${base} ${text}\` makes later assignments evaluate their values`;
    if (text.includes('[')) return `\`${base}\` is given the subscripted name \`${text}\` (its index can run commands)`;
  }
  return undefined;
}
