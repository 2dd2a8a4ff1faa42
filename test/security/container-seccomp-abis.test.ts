// Issue 33 item 5: in container mode a 32-bit syscall was killed with SIGSYS (the profile named no
// 32-bit ABI, so every int 0x80 call met the runtime's bad-architecture action) where the bwrap
// sandbox refuses it with EPERM. Now both ABIs go through the same rules: a refused call says EPERM
// and the command carries on; an allowed one runs. Also the personality rule both compositions share.
import path from 'node:path';
import { NEEDS_ENGINE, describeWithEngine } from '../support/container-engine.js';
import { ia32Usable, NEEDS_IA32, writeRawSyscall, type Abi, type Argument } from './support/raw-syscall-elf.js';
import { containerHost, run } from './support/container-defaults-kit.js';
import { sessionSeccompProfile } from '../../src/providers/exec/engine/container-seccomp.js';

interface Probe {
  readonly name: string;
  readonly nr: number;
  readonly args?: readonly Argument[];
  readonly status: number;
}

const PROBES: Record<Abi, readonly Probe[]> = {
  i386: [
    { name: 'sched_yield', nr: 158, status: 0 },
    { name: 'mount', nr: 21, status: 1 },
    { name: 'chmod_setuid', nr: 15, args: ['target', 0o4755], status: 1 },
    { name: 'chmod_plain', nr: 15, args: ['target', 0o750], status: 0 },
    { name: 'personality_no_aslr', nr: 136, args: [0x0040000], status: 1 },
  ],
  x86_64: [
    { name: 'sched_yield', nr: 24, status: 0 },
    { name: 'personality_query', nr: 135, args: [0xffffffff], status: 0 },
    { name: 'personality_no_aslr', nr: 135, args: [0x0040000], status: 1 },
    { name: 'personality_exec', nr: 135, args: [0x0400000], status: 1 },
    { name: 'personality_uname26', nr: 135, args: [0x0020000], status: 1 },
  ],
};

// Where the kernel has no 32-bit entry the runtime half below is skipped; the profile still says it.
it('the profile routes every 32-bit ABI through its rules (no bad-architecture kill) and never kills', () => {
  const profile = JSON.parse(sessionSeccompProfile()) as { defaultAction: string; archMap: { architecture: string; subArchitectures: string[] }[]; syscalls: { action: string }[] };
  expect(profile.archMap).toEqual([
    { architecture: 'SCMP_ARCH_X86_64', subArchitectures: ['SCMP_ARCH_X86', 'SCMP_ARCH_X32'] },
    { architecture: 'SCMP_ARCH_AARCH64', subArchitectures: ['SCMP_ARCH_ARM'] },
  ]);
  expect(profile.defaultAction).toBe('SCMP_ACT_ERRNO');
  expect(profile.syscalls.map((rule) => rule.action).filter((action) => !['SCMP_ACT_ALLOW', 'SCMP_ACT_ERRNO'].includes(action))).toEqual([]);
});

const onX64 = process.arch === 'x64' ? describeWithEngine : describe.skip;

onX64(`container seccomp: both ABIs are refused with EPERM, never killed${NEEDS_ENGINE}${process.arch === 'x64' ? '' : ' (skipped: the probes are x86_64 programs)'}`, () => {
  let env: Awaited<ReturnType<typeof containerHost>>;
  let session: ReturnType<typeof env.host.openSession>;
  beforeAll(async () => {
    env = await containerHost();
    session = env.host.openSession({ id: 'seccomp-abis', cwd: env.workspace });
  });
  afterAll(async () => {
    await session.dispose();
    await env.dispose();
  });

  for (const [abi, skipped] of [
    ['x86_64', ''],
    ['i386', NEEDS_IA32],
  ] as const) {
    (abi === 'i386' && !ia32Usable ? it.skip : it)(`${abi}: refused calls say EPERM (exit 1, not SIGSYS 159), allowed ones run${skipped}`, async () => {
      const lines = PROBES[abi].map((probe) => {
        writeRawSyscall(path.join(env.workspace, `.probe-${abi}-${probe.name}`), abi, probe.nr, probe.args ?? []);
        return `./.probe-${abi}-${probe.name}; echo "${probe.name}=$?"`;
      });
      const out = await run(session, ['touch target', ...lines, 'echo still-running'].join('\n'));
      expect(out.trim().split('\n')).toEqual([...PROBES[abi].map((probe) => `${probe.name}=${probe.status}`), 'still-running']);
    });
  }
});
