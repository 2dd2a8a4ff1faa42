import fs from 'node:fs';
import net from 'node:net';
import { PassThrough, type Readable } from 'node:stream';

// Reading the channel's FIFOs: a call's output and the holder's `ready` (session-channel.ts).

/** The host's read end of a FIFO and a write end of its own, held until `release` so no EOF comes before the writer opened it. */
export interface OpenFifo {
  readonly stream: Readable;
  /** Resolves when the stream ended (or was closed). */
  readonly ended: Promise<void>;
  /** Drops our write end: the stream ends once every writer in the container closed theirs. */
  release(): void;
  /** Ends the stream now. */
  close(): void;
}

export function openFifo(file: string): OpenFifo {
  const readFd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  let keeperFd: number | undefined = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
  const socket = new net.Socket({ fd: readFd, readable: true, writable: false });
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
  };
  return {
    stream,
    ended,
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
