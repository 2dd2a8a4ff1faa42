// The operator console's page (docs/operations.md, "Operator console"). Plain DOM: every value
// goes in with textContent, never as markup; the token lives in this closure only and goes out
// in the Authorization header, never in a cookie, a URL or the page.
'use strict';
(() => {
  const MAX_LINE = 2000;
  const MAX_TEXT = 64 * 1024;
  let token = '';
  let view = 'sessions';
  let selected = '';
  let stream;
  const $ = (id) => document.getElementById(id);

  // Terminal escapes (CSI, OSC, other ESC sequences) go; other controls and bidi overrides show as escapes.
  function clean(value) {
    let text = String(value ?? '');
    if (text.length > MAX_TEXT) text = `[… ${text.length - MAX_TEXT} earlier characters]\n` + text.slice(-MAX_TEXT);
    text = text
      .replace(/\x1b\][\s\S]*?(?:\x07|\x1b\\|$)/g, '')
      .replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, '')
      .replace(/\x1b[@-Z\\-_]/g, '')
      .replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u{${c.charCodeAt(0).toString(16)}}`);
    return text
      .split('\n')
      .map((line) => (line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)} [… ${line.length - MAX_LINE} more characters]` : line))
      .join('\n');
  }

  function el(tag, text, className) {
    const node = document.createElement(tag);
    if (text !== undefined) node.textContent = clean(text);
    if (className) node.className = className;
    return node;
  }

  function row(cells) {
    const tr = document.createElement('tr');
    for (const cell of cells) {
      const td = document.createElement('td');
      if (cell instanceof Node) td.append(cell);
      else td.textContent = clean(cell);
      tr.append(td);
    }
    return tr;
  }

  const ago = (ms) => {
    const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
    return s < 120 ? `${s}s` : s < 7200 ? `${Math.round(s / 60)}m` : `${Math.round(s / 3600)}h`;
  };
  const status = (text) => ($('status').textContent = clean(text));

  async function api(path, options = {}) {
    const headers = { authorization: `Bearer ${token}` };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`/console/api/${path}`, { ...options, headers, credentials: 'omit', cache: 'no-store', referrerPolicy: 'no-referrer' });
    if (!response.ok) throw new Error(`${response.status}: ${(await response.text()).trim()}`);
    return response;
  }

  function show(name) {
    view = name;
    for (const section of document.querySelectorAll('.view')) section.hidden = section.id !== `view-${name}`;
    for (const button of document.querySelectorAll('#tabs button')) button.classList.toggle('active', button.dataset.view === name);
    if (name === 'session') void refreshSession();
    if (name === 'audit') void refreshAudit();
  }

  function renderSessions(sessions) {
    const rows = sessions.map((s) => {
      const tr = row([s.id, s.caller ?? '—', s.site ?? '—', s.sandboxMode ?? '—', ago(s.openedAt), `${ago(s.lastActiveAt)} ago`, s.shellOpen ? 'open' : '—', `${s.runningTasks} running / ${s.tasks}`]);
      tr.className = 'pick';
      tr.dataset.session = s.id;
      tr.addEventListener('click', () => {
        selected = s.id;
        show('session');
      });
      return tr;
    });
    $('sessions').replaceChildren(...(rows.length ? rows : [row(['no live session'])]));
  }

  function renderApprovals(approvals) {
    $('approval-count').textContent = approvals.length ? `(${approvals.length})` : '';
    const cards = approvals.map((a) => {
      const card = el('div', undefined, 'card');
      card.dataset.approval = a.id;
      const list = el('dl');
      const facts = [['Kind', a.kind], ['Command', a.command], ['Workdir', a.workdir], ['Mode now', a.sandboxMode], ['Mode asked for', a.requestedMode],
        ['Reason given', a.justification], ['Rule that asked', a.rule], ['Tool', a.tool], ['Caller', a.caller], ['Session', a.session], ['Waiting', `${ago(a.askedAt)}`]];
      for (const [name, value] of facts) {
        if (value === undefined || value === null) continue;
        const dd = el('dd');
        dd.append(el('code', value));
        list.append(el('dt', name), dd);
      }
      const approve = el('button', 'Approve once', 'approve');
      const deny = el('button', 'Deny', 'deny');
      approve.type = deny.type = 'button';
      approve.addEventListener('click', () => answer(a.id, 'approve'));
      deny.addEventListener('click', () => answer(a.id, 'deny'));
      card.append(list, approve, ' ', deny);
      return card;
    });
    $('approvals').replaceChildren(...(cards.length ? cards : [el('p', 'Nothing waits for an answer.', 'muted')]));
  }

  async function answer(id, verdict) {
    try {
      await api(`approvals/${encodeURIComponent(id)}`, { method: 'POST', body: JSON.stringify({ verdict }) });
      status(`${verdict === 'approve' ? 'Approved' : 'Denied'} ${id}`);
    } catch (error) {
      status(`Answer failed: ${error.message}`);
    }
  }

  async function refreshSession() {
    $('session-id').textContent = clean(selected || '(pick one in Sessions)');
    if (!selected || !token) return;
    let detail;
    try {
      detail = await (await api(`sessions/${encodeURIComponent(selected)}`)).json();
    } catch (error) {
      $('tasks').replaceChildren(el('p', `Session gone: ${error.message}`, 'muted'));
      $('calls').replaceChildren();
      return;
    }
    const cards = detail.tasks.map((t) => {
      const card = el('div', undefined, 'card');
      card.dataset.task = t.id;
      card.append(el('strong', `${t.id} — ${t.status}${t.detail ? ` (${t.detail})` : ''}`), el('div', t.label, 'muted'), el('pre', t.tail || '(no output yet)'));
      if (t.status === 'running') {
        const kill = el('button', 'Kill', 'kill');
        kill.type = 'button';
        kill.addEventListener('click', () => killTask(selected, t.id));
        card.append(kill);
      }
      return card;
    });
    $('tasks').replaceChildren(...(cards.length ? cards : [el('p', 'No tasks.', 'muted')]));
    // The newest output is at the bottom of each tail.
    for (const pre of $('tasks').querySelectorAll('pre')) pre.scrollTop = pre.scrollHeight;
    const bytes = (b) => (b ? b.stdout + b.stderr + b.pty + b.task : 0);
    $('calls').replaceChildren(
      ...detail.calls.map((c) => row([c.time, c.tool, el('code', c.command ?? ''), c.outcome, c.exitCode ?? '—', `${c.durationMs} ms`, bytes(c.outputBytes)])),
    );
  }

  async function killTask(session, task) {
    try {
      await api(`sessions/${encodeURIComponent(session)}/tasks/${encodeURIComponent(task)}/kill`, { method: 'POST', body: '{}' });
      status(`Killed ${task}`);
      void refreshSession();
    } catch (error) {
      status(`Kill failed: ${error.message}`);
    }
  }

  async function refreshAudit() {
    if (!token) return;
    const params = new URLSearchParams();
    for (const [key, value] of new FormData($('audit-filter'))) if (String(value).trim()) params.set(key, String(value).trim());
    try {
      const entries = await (await api(`audit?${params}`)).json();
      $('audit').replaceChildren(...entries.map(auditRow));
    } catch (error) {
      status(`Audit failed: ${error.message}`);
    }
  }

  function auditRow(e) {
    const what = e.event === undefined ? el('code', `${e.tool}: ${e.command ?? ''}`) : el('code', e.event === 'operator_action' ? `${e.action} ${e.taskId} by ${e.operator}` : e.event);
    return row([e.time, e.caller ?? '—', e.session ?? '—', what, e.outcome ?? e.result ?? e.reason ?? e.status ?? '', e.answeredBy ?? e.operator ?? '']);
  }

  async function connect() {
    stream?.abort();
    stream = new AbortController();
    const signal = stream.signal;
    try {
      const response = await api('events', { signal });
      status('Connected.');
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event && data) onEvent(event, JSON.parse(data));
        }
      }
      status('Disconnected: the server ended the stream.');
    } catch (error) {
      if (!signal.aborted) status(`Not connected: ${error.message}`);
    }
  }

  function onEvent(event, data) {
    if (event === 'state') {
      status(`Connected as operator ${data.operator}.`);
      renderSessions(data.sessions);
      renderApprovals(data.approvals);
      if (view === 'session') void refreshSession();
    } else if (event === 'audit' && view === 'audit') {
      void refreshAudit();
    }
  }

  document.addEventListener('DOMContentLoaded', () => {
    $('login').addEventListener('submit', (event) => {
      event.preventDefault();
      token = $('token').value.trim();
      $('token').value = '';
      void connect();
    });
    $('audit-filter').addEventListener('submit', (event) => {
      event.preventDefault();
      void refreshAudit();
    });
    for (const button of document.querySelectorAll('#tabs button')) button.addEventListener('click', () => show(button.dataset.view));
    show('sessions');
  });
})();
