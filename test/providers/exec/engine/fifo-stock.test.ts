// The channel's FIFO stock (src/providers/exec/engine/fifo-stock.ts): a FIFO given back is used again only when
// no process holds it open, under a new name.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FifoStock, unheld } from '../../../../src/providers/exec/engine/fifo-stock.js';

/**
 * A process holding `file` open, resolved once it has: read-write with `both`, else only the end named
 * (`<` to read, `>` to write; opened while it holds the other end too, so the open does not wait for a peer).
 */
async function holder(file: string, direction: '<' | '>', both = false): Promise<ChildProcess> {
  const script = `exec 3<>"$1"; exec 4${direction}"$1"; ${both ? '' : 'exec 3>&-; '}echo held; exec sleep 60`;
  const child = spawn('bash', ['-c', script, 'holder', file], { stdio: ['ignore', 'pipe', 'ignore'] });
  await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
  return child;
}

describe('FifoStock.giveBack', () => {
  let dir: string;
  const children: ChildProcess[] = [];
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-fifo-stock-'));
  });
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('takes back a FIFO nobody holds, under a new name, and hands the same FIFO out again', async () => {
    const stock = new FifoStock(dir);
    const [used] = await stock.take(1);
    const inode = statSync(used!).ino;
    stock.giveBack([used!]);
    expect(existsSync(used!)).toBe(false);
    // The stock hands out from its end: the FIFO given back comes first.
    const [again] = await stock.take(1);
    expect(again).not.toBe(used);
    expect(statSync(again!).ino).toBe(inode);
    expect(statSync(again!).isFIFO()).toBe(true);
  });

  it.each([
    ['a reader', '<'],
    ['a writer', '>'],
  ] as const)('removes a FIFO %s still holds, and never hands it out again', async (_who, direction) => {
    const stock = new FifoStock(dir);
    const [used] = await stock.take(1);
    const inode = statSync(used!).ino;
    children.push(await holder(used!, direction));
    expect(unheld(used!)).toBe(false);
    stock.giveBack([used!]);
    expect(existsSync(used!)).toBe(false);
    const inodes = readdirSync(dir).map((name) => statSync(path.join(dir, name)).ino);
    expect(inodes).not.toContain(inode);
  });

  it('counts a FIFO held read-write as held', async () => {
    const stock = new FifoStock(dir);
    const [used] = await stock.take(1);
    children.push(await holder(used!, '<', true));
    expect(unheld(used!)).toBe(false);
  });

  it('finds a FIFO idle once its holder is gone', async () => {
    const stock = new FifoStock(dir);
    const [used] = await stock.take(1);
    const child = await holder(used!, '>');
    expect(unheld(used!)).toBe(false);
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await gone;
    expect(unheld(used!)).toBe(true);
  });

  it('takes nothing back once closed: its directory is about to go', async () => {
    const stock = new FifoStock(dir);
    const [used] = await stock.take(1);
    stock.close();
    const before = readdirSync(dir).length;
    stock.giveBack([used!]);
    expect(readdirSync(dir).length).toBe(before - 1);
  });

  it('skips a FIFO whose directory is gone', async () => {
    const stock = new FifoStock(dir);
    const [used] = await stock.take(1);
    rmSync(dir, { recursive: true, force: true });
    expect(() => stock.giveBack([used!])).not.toThrow();
  });
});
