import { promises as fs } from 'node:fs';

/** Creates `dir` 0700 when missing; refuses one that is not a directory of this uid closed to other writers. */
export async function privateDirectory(dir: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const stat = await fs.lstat(dir);
  const refuse = (why: string): Error => new Error(`refusing the session record directory ${dir}: ${why} (another local user could plant or read session records)`);
  if (!stat.isDirectory()) throw refuse('it is not a directory (a symbolic link or a file)');
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) throw refuse(`it belongs to uid ${stat.uid}, not to this server's uid ${uid}`);
  if ((stat.mode & 0o022) !== 0) throw refuse(`its group or others may write in it (mode ${(stat.mode & 0o777).toString(8)})`);
}
