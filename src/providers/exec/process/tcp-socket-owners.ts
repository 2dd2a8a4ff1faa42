import { readdirSync, readlinkSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { isIP } from 'node:net';
import os from 'node:os';
import { listPids, quietly } from './proc-environ.js';

/** Processes whose descriptors are read in one turn of the event loop; the scan yields between turns. */
const SCAN_BATCH = 16;

/** One end of a TCP connection as node reports it (`socket.remoteAddress`, `remotePort`). */
interface TcpEnd {
  readonly address: string;
  readonly port: number;
}

/** The other end's socket in this network namespace's tables: its inode (0 once no process holds it) and owner uid. */
interface TcpSocket {
  readonly inode: number;
  readonly uid: number;
}

/**
 * The socket of the process at `peer` that is connected to `local`, from
 * /proc/net/tcp and tcp6. Only a peer in this network namespace is listed
 * there: a loopback client, or one using an address of this host. Undefined
 * when it is not there (a remote peer, another namespace, or gone).
 */
export async function peerSocket(peer: TcpEnd, local: TcpEnd): Promise<TcpSocket | undefined> {
  const want = `${canonicalAddress(peer.address)}:${peer.port} ${canonicalAddress(local.address)}:${local.port}`;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = await readFile(table, 'latin1');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10) continue;
      if (`${fromTable(fields[1]!)} ${fromTable(fields[2]!)}` === want) return { inode: Number(fields[9]), uid: Number(fields[7]) };
    }
  }
  return undefined;
}

/**
 * The pids holding socket `inode` open: every process's descriptors, one
 * readlink each. Read synchronously (a thread-pool round trip per link costs
 * far more on a busy host) in batches, yielding between them so a host with
 * thousands of descriptors does not stall the server's other sessions.
 */
export async function socketOwners(inode: number): Promise<number[]> {
  const target = `socket:[${inode}]`;
  const owners: number[] = [];
  const pids = listPids();
  for (let at = 0; at < pids.length; at += SCAN_BATCH) {
    if (at > 0) await nextTurn();
    quietly(() => {
      for (const pid of pids.slice(at, at + SCAN_BATCH)) if (holds(pid, target)) owners.push(pid);
    });
  }
  return owners;
}

function holds(pid: number, target: string): boolean {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false; // gone, or not ours to read
  }
  for (const fd of fds) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`) === target) return true;
    } catch {
      // closed meanwhile
    }
  }
  return false;
}

/** True for an address of this host: loopback, or one of its interfaces'. */
export function isHostAddress(address: string): boolean {
  const bare = canonicalAddress(address);
  if (bare.startsWith('127.') || bare === '::1') return true;
  return Object.values(os.networkInterfaces()).some((list) => list?.some((entry) => canonicalAddress(entry.address) === bare));
}

/**
 * An IP address as one text, so two spellings of one address compare equal:
 * IPv4-mapped IPv6 as plain IPv4, IPv6 in its shortest lower-case form (the
 * URL standard's serialisation). Anything else is returned as it is.
 */
export function canonicalAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  return isIP(address) === 6 ? new URL(`http://[${address}]/`).hostname.slice(1, -1) : address;
}

/** A `HEX:PORT` entry of /proc/net/tcp{,6}: words of the address in host byte order, the port big-endian. */
function fromTable(entry: string): string {
  const [hex = '', portHex = '0'] = entry.split(':');
  const port = parseInt(portHex, 16);
  const bytes: number[] = [];
  for (let word = 0; word < hex.length; word += 8) {
    const value = Buffer.from(hex.slice(word, word + 8), 'hex');
    bytes.push(...(os.endianness() === 'LE' ? [...value].reverse() : [...value]));
  }
  if (bytes.length === 4) return `${bytes.join('.')}:${port}`;
  const mappedV4 = bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  if (mappedV4) return `${bytes.slice(12).join('.')}:${port}`;
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  return `${canonicalAddress(groups.join(':'))}:${port}`;
}
