// Compiles the native call helper (src/providers/exec/engine/native/dsh-call.c) for this machine's
// architecture into dist/native/dsh-call-<arch>, static so any image runs it. Run by `npm run build`
// and by the test support when the binary is missing or older than its source. Without a C compiler
// it says so and exits 0: session channels then run every call in bash.
import { spawnSync } from 'node:child_process';
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'dist/native', `dsh-call-${process.arch}`);
const source = path.join(root, 'src/providers/exec/engine/native/dsh-call.c');
// Under a name of its own, then renamed: a parallel build or a running helper never sees half a file.
const fresh = `${out}.${process.pid}.new`;
mkdirSync(path.dirname(out), { recursive: true });
const cc = process.env.CC || 'cc';
const built = spawnSync(cc, ['-static', '-O2', '-s', '-Wall', '-o', fresh, source], { cwd: root, stdio: ['ignore', 'inherit', 'pipe'] });
if (built.status === 0) {
  renameSync(fresh, out);
} else {
  rmSync(fresh, { force: true });
  const why = built.error ? built.error.message : built.stderr.toString().trim().split('\n').slice(-1)[0];
  console.warn(`note: the native call helper was not built (${cc}: ${why}); session channels run every call in bash`);
}
