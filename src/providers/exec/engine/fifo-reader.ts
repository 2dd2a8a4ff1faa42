import fs from 'node:fs';
import net from 'node:net';
import { PassThrough, type Readable } from 'node:stream';

// The channel's FIFOs, host side: a call's stdin, output and status, and the holder's `ready` (session-channel.ts).

/** The host's read end of a FIFO and a write end of its own, held until `release` so no EOF comes before the writer opened it. */
export interface OpenFifo {
  readonly stream: Readable;
  /** Resolves when the stream ended (or was closed). */
  readonly ended: Promise<void>;
  /** Drops our write end: the stream ends once every writer in the container closed theirs. */
  release(): void;
  /** Ends the stream now. */
  close(): void;
  /** Resolves once this process holds the FIFO open no more (both descriptors closed). */
  readonly closed: Promise<void>;
}

export function openFifo(file: string): OpenFifo {
  const readFd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  let keeperFd: number | undefined = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
  const socket = new net.Socket({ fd: readFd, readable: true, writable: false });
  const socketClosed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  let keeperClosed!: () => void;
  const keeperGone = new Promise<void>((resolve) => (keeperClosed = resolve));
  // A PassThrough, so the stream's consumers see a plain Readable that ends exactly once.
  const stream = new PassThrough();
  socket.pipe(stream);
  const ended = new Promise<void>((resolve) => {
    stream.once('end', resolve);
    stream.once('close', resolve);
    socket.once('error', () => stream.end());
  });
  const release = (): void => {
    if (keeperFd === undefined) return;
    fs.closeSync(keeperFd);
    keeperFd = undefined;
    keeperClosed();
  };
  return {
    stream,
    ended,
    closed: Promise.all([socketClosed, keeperGone]).then(() => undefined),
    release,
    close: () => {
      release();
      socket.destroy();
      stream.end();
    },
  };
}

/** The first line a stream writes, or undefined when the process ends or `timeoutMs` passes first. */
export function firstLine(stream: Readable, exited: Promise<unknown>, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    let text = '';
    const timer = setTimeout(() => done(undefined), timeoutMs);
    const done = (line: string | undefined): void => {
      clearTimeout(timer);
      stream.off('data', onData);
      resolve(line);
    };
    const onData = (chunk: Buffer): void => {
      text += chunk.toString('latin1');
      const newline = text.indexOf('\n');
      if (newline >= 0) done(text.slice(0, newline));
    };
    stream.on('data', onData);
    void exited.then(() => done(undefined));
  });
}

/**
 * Writes `data` into a FIFO the container reads, and closes it with `close`.
 * Opened read-write, which never blocks or fails for want of a reader; the
 * reader takes exactly the bytes it was told of, so it needs no EOF. Unlike a
 * file, what was read is gone: no process can read it again through the
 * reader's descriptor (the wrapper's key is in it).
 */
export function fifoWriter(file: string, data: string): { close(): void; readonly closed: Promise<void> } {
  const fd = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_NONBLOCK);
  const socket = new net.Socket({ fd, readable: false, writable: true });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => undefined);
  socket.write(data);
  return { close: () => void socket.destroy(), closed };
}
