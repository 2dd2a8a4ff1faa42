// Issue 35's Done-when for the operator console: the built `serve --http --console` (bwrap
// read-only sandbox), two callers' real MCP clients, and headless Chromium (Debian's, through
// playwright-core) driving the page as an operator: both sessions listed, a running task's tail
// updating, one escalation approved and another denied — the model-facing results and the audit
// log name the operator —, a task killed, the audit view filtered; hostile strings (HTML, a
// javascript: link, ANSI and OSC sequences, a 1 MB line) stay inert text. Screenshots of every
// view go to a temp directory (printed).
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { describeWithBwrap, NEEDS_BWRAP } from '../support/bwrap.js';
import { CALLER_TOKENS, OPERATOR_TOKEN, tokenFile } from '../support/console-kit.js';
import { connectClient, serverDirs, startHttpServer, type HttpServer } from '../support/mcp-clients.js';

// The page's globals, as the callbacks below use them in the browser (this file is compiled without the DOM library).
declare const document: { querySelectorAll(selector: string): { length: number }; querySelector(selector: string): { textContent: string | null } | null; cookie: string };
declare const localStorage: unknown;
declare const sessionStorage: unknown;
declare const window: unknown;

const CHROMIUM = '/usr/bin/chromium';
// In CI (.ci/run sets DSH_CI_CHROMIUM and installs chromium) the test always runs: a missing browser fails it.
const runs = existsSync(CHROMIUM) || process.env.DSH_CI_CHROMIUM === '1';
const NEEDS_CHROMIUM = runs ? '' : ` (skipped: needs Debian's chromium at ${CHROMIUM} — apt-get install -y chromium)`;
const describeWithBrowser: jest.Describe = runs ? describeWithBwrap : describe.skip;

const HOSTILE = [
  '<script>window.__pwned = "script"</script>',
  '<img src=x onerror="window.__pwned = \'img\'">',
  '<a href="javascript:window.__pwned=\'link\'">click me</a>',
  'javascript:window.__pwned = "bare"',
].join(' ');
const ANSI = "printf '\\033[31mRED\\033[0m \\033]0;OWNED-TITLE\\007 \\033]8;;javascript:alert(1)\\033\\\\osc-link\\033]8;;\\033\\\\ \\033[2J\\n'";
const text = (result: CallToolResult) => result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');

describeWithBrowser(`operator console in headless Chromium${NEEDS_CHROMIUM}${NEEDS_BWRAP}`, () => {
  let dirs: ReturnType<typeof serverDirs>;
  let server: HttpServer;
  let browser: Browser;
  let shots: string;
  let audit: string;
  beforeAll(async () => {
    dirs = serverDirs();
    shots = mkdtempSync(path.join(os.tmpdir(), 'dsh-console-shots-'));
    audit = path.join(dirs.root, 'audit.jsonl');
    const callers = tokenFile(dirs.root, 'callers', CALLER_TOKENS);
    const operators = tokenFile(dirs.root, 'operators', { oscar: OPERATOR_TOKEN });
    server = await startHttpServer({
      workspace: dirs.workspace,
      dshHome: dirs.dshHome,
      args: ['--sandbox', 'read-only', '--token-file', callers, '--console', '--operator-token-file', operators, '--audit-log', audit],
      token: CALLER_TOKENS.alice,
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    server?.process.kill('SIGTERM');
    await server?.exited;
    dirs?.cleanup();
    process.stderr.write(`console screenshots: ${shots}\n`);
  });

  const shoot = (page: Page, view: string) => page.screenshot({ path: path.join(shots, `console-${view}.png`), fullPage: true });

  it('shows sessions, tails, approvals and audit to the operator, and the operator name reaches the model and the audit log', async () => {
    const alice = await connectClient(new URL(server.url), CALLER_TOKENS.alice, { name: 'alice-agent' });
    const bob = await connectClient(new URL(server.url), CALLER_TOKENS.bob, { name: 'bob-agent' });
    try {
      // Alice: hostile commands in her calls, then a task that prints hostile output and ticks.
      await alice.client.callTool({ name: 'bash', arguments: { command: `echo '${HOSTILE}'`, description: 'Hostile echo' } });
      await alice.client.callTool({ name: 'bash', arguments: { command: `: ${'A'.repeat(1024 * 1024)}`, description: 'A 1 MB line' } });
      const task = (await alice.client.callTool({
        name: 'bash',
        arguments: { command: `head -c 1048576 /dev/zero | tr '\\0' B; echo; echo '${HOSTILE}'; ${ANSI}; i=0; while true; do i=$((i+1)); echo tick-$i; sleep 0.2; done`, description: 'Tick', run_in_background: true },
      })) as CallToolResult;
      const taskId = /\b(bash-\d+)\b/.exec(text(task))![1]!;

      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(error.message));
      await page.goto(new URL('/console', server.url).href);
      await page.fill('#token', OPERATOR_TOKEN);
      await page.click('#login button');
      await page.waitForFunction(() => document.querySelectorAll('#sessions tr[data-session]').length === 2);
      expect(await page.$$eval('#sessions tr[data-session] td:nth-child(2)', (cells) => cells.map((c) => c.textContent).sort())).toEqual(['alice', 'bob']);
      expect(await page.textContent('#status')).toBe('Connected as operator oscar.');
      // The token is nowhere in the page, its URL or storage.
      expect(await page.content()).not.toContain(OPERATOR_TOKEN);
      expect(page.url()).not.toContain(OPERATOR_TOKEN);
      expect(await page.evaluate(() => document.cookie + JSON.stringify(localStorage) + JSON.stringify(sessionStorage))).not.toContain('oscar-operator');
      await shoot(page, 'sessions');

      // Bob asks for two escalations: they wait in the console.
      const approvedMarker = path.join(dirs.workspace, 'approved');
      const deniedMarker = path.join(dirs.workspace, 'denied');
      const escalate = (marker: string, justification: string) =>
        bob.client.callTool({ name: 'bash', arguments: { command: `touch ${marker}`, description: 'Touch', sandbox_permissions: 'workspace-write', justification } }) as Promise<CallToolResult>;
      const approvedCall = escalate(approvedMarker, 'write the marker');
      const deniedCall = escalate(deniedMarker, HOSTILE);

      // Alice's session: her task's tail updates.
      await page.click('#sessions tr[data-session]:has(td:nth-child(2):text-is("alice"))');
      await page.waitForFunction((id) => /tick-\d+/.test(document.querySelector(`[data-task="${id}"] pre`)?.textContent ?? ''), taskId);
      const tick = async () => Number(/tick-(\d+)(?![\s\S]*tick-)/.exec((await page.textContent(`[data-task="${taskId}"] pre`)) ?? '')![1]);
      const first = await tick();
      await page.waitForFunction(([id, n]) => new RegExp(`tick-${Number(n) + 2}\\b`).test(document.querySelector(`[data-task="${id}"] pre`)?.textContent ?? ''), [taskId, first] as const);
      expect(await tick()).toBeGreaterThan(first);
      const tail = (await page.textContent(`[data-task="${taskId}"] pre`))!;
      expect(tail).toContain('<script>window.__pwned = "script"</script>');
      expect(tail).toContain('RED');
      expect(tail).not.toContain('\u001b');
      expect(await page.textContent('#calls')).toContain('A'.repeat(100));
      expect((await page.textContent('#calls'))!.length).toBeLessThan(100_000);
      await shoot(page, 'session');

      // The approvals: approve one, deny the other.
      await page.click('#tabs button[data-view="approvals"]');
      await page.waitForFunction(() => document.querySelectorAll('#approvals [data-approval]').length === 2);
      await shoot(page, 'approvals');
      const card = (marker: string) => `#approvals [data-approval]:has(code:text-is("touch ${marker}"))`;
      expect(await page.textContent(card(deniedMarker))).toContain(HOSTILE);
      expect(await page.textContent(card(approvedMarker))).toContain('workspace-write');
      await page.click(`${card(approvedMarker)} button.approve`);
      await page.click(`${card(deniedMarker)} button.deny`);
      const [approved, denied] = await Promise.all([approvedCall, deniedCall]);
      expect(approved.isError).toBeFalsy();
      expect(text(approved)).toContain('[escalation approved once by operator "oscar" in the operator console]');
      expect(existsSync(approvedMarker)).toBe(true);
      expect(denied.isError).toBe(true);
      expect(text(denied)).toContain('escalation rejected by operator "oscar" (console)');
      expect(existsSync(deniedMarker)).toBe(false);
      await page.waitForFunction(() => document.querySelectorAll('#approvals [data-approval]').length === 0);

      // Kill alice's task from her session's view.
      await page.click('#tabs button[data-view="session"]');
      await page.click(`[data-task="${taskId}"] button.kill`);
      await page.waitForFunction((id) => /— killed/.test(document.querySelector(`[data-task="${id}"] strong`)?.textContent ?? ''), taskId);

      // The audit view, filtered to bob.
      await page.click('#tabs button[data-view="audit"]');
      await page.fill('#audit-filter input[name="caller"]', 'bob');
      await page.click('#audit-filter button');
      await page.waitForFunction(() => document.querySelectorAll('#audit tr').length === 2);
      expect(await page.$$eval('#audit tr td:nth-child(2)', (cells) => [...new Set(cells.map((c) => c.textContent))])).toEqual(['bob']);
      expect(await page.$$eval('#audit tr td:nth-child(6)', (cells) => cells.map((c) => c.textContent))).toEqual(['console:oscar', 'console:oscar']);
      await shoot(page, 'audit');

      // Everything hostile stayed text.
      expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
      expect(await page.$$eval('a', (links) => links.length)).toBe(0);
      expect(await page.$$eval('img', (images) => images.length)).toBe(0);
      expect(await page.$$eval('script', (scripts) => scripts.map((s) => s.getAttribute('src')))).toEqual(['/console/console.js']);
      expect(await page.title()).toBe('dsh-tools operator console');
      expect(problems).toEqual([]);

      const records = readFileSync(audit, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
      const touches = records.filter((r) => typeof r.command === 'string' && (r.command as string).startsWith('touch '));
      expect(touches.map((r) => [r.approval, r.answeredBy, r.caller])).toEqual(
        expect.arrayContaining([['allowed-once', 'console:oscar', 'bob'], ['rejected', 'console:oscar', 'bob']]),
      );
      expect(records.find((r) => r.event === 'operator_action')).toMatchObject({ operator: 'oscar', action: 'kill_task', caller: 'alice', taskId, result: 'killed' });
    } finally {
      await alice.transport.close().catch(() => undefined);
      await bob.transport.close().catch(() => undefined);
    }
  }, 120_000);
});
