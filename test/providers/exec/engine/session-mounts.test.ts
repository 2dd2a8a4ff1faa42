// What a session container is given: protected paths over a writable workspace (never a missing one),
// masks over the server's own files wherever a mount would show them, and the Docker form of each mount.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sessionMounts } from '../../../../src/providers/exec/engine/session-mounts.js';
import { dockerMounts } from '../../../../src/providers/backends/docker/docker-mounts.js';
import { resolveContainerConfig } from '../../../../src/providers/exec/engine/container-config.js';

describe('session mounts', () => {
  let root: string;
  let ws: string;
  let shared: string;
  beforeEach(() => {
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dsh-session-mounts-')));
    ws = path.join(root, 'ws');
    shared = path.join(root, 'shared');
    mkdirSync(path.join(ws, '.git'), { recursive: true });
    mkdirSync(shared);
    writeFileSync(path.join(ws, '.envrc'), '');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('protects what exists in a writable workspace, at the workspace path a symlinked workspace has inside', () => {
    const link = path.join(root, 'link');
    symlinkSync(ws, link);
    const mounts = sessionMounts({ configured: [], sharedDir: shared, workspace: link, workspaceReadOnly: false, protectedPaths: ['.git', '.envrc', '.vscode'], hidden: [] });
    expect(mounts.slice(2)).toEqual([
      { source: path.join(ws, '.git'), target: path.join(link, '.git'), readOnly: true, kind: 'directory' },
      { source: path.join(ws, '.envrc'), target: path.join(link, '.envrc'), readOnly: true, kind: 'file' },
    ]);
  });

  it('protects nothing in a read-only workspace and nothing outside the workspace', () => {
    symlinkSync('/etc', path.join(ws, '.vscode'));
    expect(sessionMounts({ configured: [], sharedDir: shared, workspace: ws, workspaceReadOnly: true, protectedPaths: ['.git'], hidden: [] })).toHaveLength(2);
    const writable = sessionMounts({ configured: [], sharedDir: shared, workspace: ws, workspaceReadOnly: false, protectedPaths: ['.vscode'], hidden: [] });
    expect(writable).toHaveLength(2);
  });

  it('masks a server file inside the workspace and inside a configured mount, at the path it has inside', () => {
    const extra = path.join(root, 'extra');
    mkdirSync(extra);
    writeFileSync(path.join(extra, 'token'), 'secret');
    writeFileSync(path.join(ws, 'dsh.yaml'), 'secret');
    const mounts = sessionMounts({
      configured: [{ source: extra, target: '/secrets', readOnly: true }],
      sharedDir: shared,
      workspace: ws,
      workspaceReadOnly: false,
      protectedPaths: [],
      hidden: [path.join(extra, 'token'), path.join(ws, 'dsh.yaml'), path.join(root, 'elsewhere')],
    });
    const masks = mounts.filter((m) => m.source.startsWith(shared + '/'));
    expect(masks.map((m) => [m.target, m.kind, m.readOnly])).toEqual([
      ['/secrets/token', 'file', true],
      [path.join(ws, 'dsh.yaml'), 'file', true],
    ]);
  });

  it('in Docker terms: read-only directories are nosuid,nodev volumes; writable ones and files are binds', () => {
    const { mounts, binds } = dockerMounts(
      [
        { source: ws, target: ws, readOnly: false },
        { source: shared, target: shared, readOnly: true, kind: 'directory' },
        { source: path.join(ws, '.envrc'), target: path.join(ws, '.envrc'), readOnly: true, kind: 'file' },
        { ...resolveContainerConfig({ image: 'i', mounts: [`${root}:/r:ro,noexec`] }).mounts[0]! },
      ],
      { 'dsh-tools.managed': '1' },
    );
    expect(binds).toEqual([`${ws}:${ws}:rw`]);
    expect(mounts.map((m) => [m.Type, m.Target, m.VolumeOptions?.DriverConfig.Options.o ?? m.ReadOnly])).toEqual([
      ['volume', shared, 'bind,ro,nosuid,nodev'],
      ['bind', path.join(ws, '.envrc'), true],
      ['volume', '/r', 'bind,ro,nosuid,nodev,noexec'],
    ]);
    expect(() => resolveContainerConfig({ image: 'i', mounts: ['/a:/b:rw,noexec'] })).toThrow('may only end in :ro, :rw or :ro,noexec');
    expect(() => resolveContainerConfig({ image: 'i', protectedPaths: ['/abs'] })).toThrow('invalid container config: protectedPaths entry "/abs"');
  });
});
