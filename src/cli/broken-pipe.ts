/**
 * `dsh-tools prompt | head` closes stdout early; the write error must not
 * crash the command before it has disposed its host (and its processes).
 * Other stream errors still surface.
 */
export function ignoreBrokenStdout(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}
