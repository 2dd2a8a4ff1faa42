// Issue 33 item 1 (critical): a root server's workspace-write sandbox must not leave a set-id or device
// file on the host. The workspace is bound from the host, so a file a confined root command creates is
// root's there, and `nosuid` inside the sandbox does nothing for a host user who runs it. Every route
// that takes a mode is tried, raw (no libc in between), through the 64-bit ABI and the 32-bit one
// (int 0x80), from the one-shot and the persistent shell; the host then stats what was left behind.
import { lstatSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describeWithBwrap, NEEDS_BWRAP } from '../support/bwrap.js';
import { ia32Usable, NEEDS_IA32, writeRawSyscall, type Abi, type Argument } from './support/raw-syscall-elf.js';
import { bash, KernelHosts, SHELLS } from './support/sandbox-kernel-hosts.js';

const AT_FDCWD = -100;
const O_WRONLY_CREAT = 0o1 | 0o100;
const O_TMPFILE_RDWR = 0o20200000 | 0o2;
const S_IFREG = 0o100000;
const S_IFCHR = 0o020000;
const S_IFBLK = 0o060000;
const S_IFIFO = 0o010000;

const NR: Record<Abi, Record<string, number>> = {
  x86_64: { open: 2, creat: 85, openat: 257, openat2: 437, chmod: 90, fchmod: 91, fchmodat: 268, fchmodat2: 452, mknod: 133, mknodat: 259 },
  i386: { open: 5, creat: 8, openat: 295, openat2: 437, chmod: 15, fchmod: 94, fchmodat: 306, fchmodat2: 452, mknod: 14, mknodat: 297 },
};

/** struct open_how { u64 flags; u64 mode; u64 resolve; } asking to create with mode 04755. */
const openHow = (): Buffer => {
  const how = Buffer.alloc(24);
  how.writeBigUInt64LE(BigInt(O_WRONLY_CREAT), 0);
  how.writeBigUInt64LE(0o4755n, 8);
  return how;
};

interface Route {
  readonly name: string;
  readonly syscall: string;
  readonly args: readonly Argument[];
  /** The exit status expected: the errno (1 EPERM, 38 ENOSYS). */
  readonly refused: number;
  /** Made (a copy of a binary) before the call, for the routes that change an existing file. */
  readonly existing?: true;
  /** Shell redirection for the routes that take a descriptor. */
  readonly redirect?: string;
}

/** Each route names its target file after itself, so the host can stat what it left. */
const ROUTES: readonly Route[] = [
  { name: 'chmod-4755', syscall: 'chmod', args: ['chmod-4755', 0o4755], refused: 1, existing: true },
  { name: 'chmod-2755', syscall: 'chmod', args: ['chmod-2755', 0o2755], refused: 1, existing: true },
  { name: 'fchmod', syscall: 'fchmod', args: [3, 0o4755], refused: 1, existing: true, redirect: '3<>fchmod' },
  { name: 'fchmodat', syscall: 'fchmodat', args: [AT_FDCWD, 'fchmodat', 0o6755], refused: 1, existing: true },
  { name: 'fchmodat2', syscall: 'fchmodat2', args: [AT_FDCWD, 'fchmodat2', 0o4755, 0], refused: 1, existing: true },
  { name: 'open', syscall: 'open', args: ['open', O_WRONLY_CREAT, 0o4755], refused: 1 },
  { name: 'creat', syscall: 'creat', args: ['creat', 0o2755], refused: 1 },
  { name: 'openat', syscall: 'openat', args: [AT_FDCWD, 'openat', O_WRONLY_CREAT, 0o4755], refused: 1 },
  { name: 'openat-tmpfile', syscall: 'openat', args: [AT_FDCWD, '.', O_TMPFILE_RDWR, 0o4755], refused: 1 },
  { name: 'openat2', syscall: 'openat2', args: [AT_FDCWD, 'openat2', openHow(), 24], refused: 38 },
  { name: 'mknod-reg', syscall: 'mknod', args: ['mknod-reg', S_IFREG | 0o4755, 0], refused: 1 },
  { name: 'mknod-chr', syscall: 'mknod', args: ['mknod-chr', S_IFCHR | 0o666, 0x103], refused: 1 },
  { name: 'mknodat-blk', syscall: 'mknodat', args: [AT_FDCWD, 'mknodat-blk', S_IFBLK | 0o600, 0x800], refused: 1 },
  { name: 'mknodat-chr', syscall: 'mknodat', args: [AT_FDCWD, 'mknodat-chr', S_IFCHR | 0o600, 0x103], refused: 1 },
];

/** Ordinary modes that must keep working: plain and sticky chmod, a plain create, a FIFO. */
const ALLOWED: readonly Route[] = [
  { name: 'ok-chmod', syscall: 'chmod', args: ['ok-chmod', 0o1777], refused: 0, existing: true },
  { name: 'ok-open', syscall: 'open', args: ['ok-open', O_WRONLY_CREAT, 0o644], refused: 0 },
  { name: 'ok-fifo', syscall: 'mknodat', args: [AT_FDCWD, 'ok-fifo', S_IFIFO | 0o600, 0], refused: 0 },
];

/** Writes the probes into the workspace and returns the script that runs each and prints `name=<status>`. */
function prepare(workspace: string, abi: Abi, routes: readonly Route[]): string {
  const lines: string[] = [];
  for (const route of routes) {
    const probe = `.probe-${abi}-${route.name}`;
    writeRawSyscall(path.join(workspace, probe), abi, NR[abi][route.syscall]!, route.args);
    const before = route.existing === true ? `cp /bin/true ${route.name} && ` : '';
    lines.push(`${before}./${probe} ${route.redirect ?? ''}; echo "${route.name}=$?"`);
  }
  return lines.join('\n');
}

/** What the host sees at `file`: absent, or its type and set-id bits. */
function leftOnHost(file: string): string {
  try {
    const info = lstatSync(file);
    if (info.isCharacterDevice() || info.isBlockDevice()) return 'device';
    return (info.mode & 0o6000) !== 0 ? `set-id ${(info.mode & 0o7777).toString(8)}` : 'plain';
  } catch {
    return 'absent';
  }
}

const ABIS: ReadonlyArray<[Abi, string]> = [
  ['x86_64', ''],
  ['i386', NEEDS_IA32],
];
const onX64 = process.arch === 'x64' ? describeWithBwrap : describe.skip;

onX64(`sandbox set-id files: no set-id or device file reaches the host${NEEDS_BWRAP}${process.arch === 'x64' ? '' : ' (skipped: the probes are x86_64 programs)'}`, () => {
  const hosts = new KernelHosts();
  afterEach(() => hosts.disposeAll());

  describe.each(SHELLS)('%s shell', (shell) => {
    describe.each(ABIS)('%s ABI', (abi, skipped) => {
      const run = abi === 'i386' && !ia32Usable ? it.skip : it;

      run(`every mode-taking route with a set-id mode or a device type is refused, and nothing set-id or device is left${skipped}`, async () => {
        const { session, workspace } = await hosts.session(shell, 'workspace-write');
        const out = await bash(session, prepare(workspace, abi, ROUTES));
        expect(out.trim().split('\n')).toEqual(ROUTES.map((route) => `${route.name}=${route.refused}`));
        for (const route of ROUTES) {
          expect([route.name, leftOnHost(path.join(workspace, route.name))]).toEqual([route.name, route.existing === true ? 'plain' : 'absent']);
        }
      });

      run(`sticky, plain and FIFO modes still work${skipped}`, async () => {
        const { session, workspace } = await hosts.session(shell, 'workspace-write');
        const out = await bash(session, prepare(workspace, abi, ALLOWED));
        // open returns a descriptor: 256 - 3.
        expect(out.trim().split('\n')).toEqual(['ok-chmod=0', 'ok-open=253', 'ok-fifo=0']);
        expect((lstatSync(path.join(workspace, 'ok-chmod')).mode & 0o7777).toString(8)).toBe('1777');
        expect(lstatSync(path.join(workspace, 'ok-fifo')).isFIFO()).toBe(true);
      });
    });

    it('the everyday tools: chmod u+s/g+s/4755, install -m 4755, perl sysopen 04755, mknod c/b are refused; the host sees no set-id or device file', async () => {
      const { session, workspace } = await hosts.session(shell, 'workspace-write');
      writeFileSync(path.join(workspace, 'script.sh'), '#!/bin/sh\nid -u\n', { mode: 0o755 });
      const out = await bash(
        session,
        '{ ' +
          [
          'cp /bin/true sb && chmod 4755 sb; echo "chmod=$?"',
          'chmod u+s script.sh; echo "u+s=$?"',
          'chmod g+s script.sh; echo "g+s=$?"',
          'install -m 4755 /bin/true inst; echo "install=$?"',
          `perl -e 'sysopen(F, "made", 65, 04755) ? print "sysopen=0\\n" : print "sysopen=", $! + 0, "\\n"'`,
          'mknod null c 1 3; echo "mknod-c=$?"',
          'mknod disk b 8 0; echo "mknod-b=$?"',
          ].join('; ') +
          '; } 2>/dev/null',
      );
      expect(out.trim().split('\n')).toEqual(['chmod=1', 'u+s=1', 'g+s=1', 'install=1', 'sysopen=1', 'mknod-c=1', 'mknod-b=1']);
      for (const file of ['sb', 'script.sh', 'inst', 'made', 'null', 'disk']) expect(`${file}: ${leftOnHost(path.join(workspace, file))}`).toMatch(/: (plain|absent)$/);
    });
  });
});
