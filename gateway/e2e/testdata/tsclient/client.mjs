// client.mjs drives the ghops gateway with the official MCP TypeScript SDK,
// the client behind MCP Inspector, mcp-remote and most TypeScript hosts:
// v1 (@modelcontextprotocol/sdk, 2025-11-25 and older) or v2
// (@modelcontextprotocol/client, which also speaks 2026-07-28).
// gateway/e2e/tsclient_test.go writes a plan (a JSON file named by the
// first argument), runs this program and asserts on the one JSON document
// it prints: what the SDK surfaced for every step, as a host built on it
// would see it.
//
// The plan:
//
//	sdk        "v1" or "v2"
//	transport  "http" (Streamable HTTP to url) or "stdio" (spawn command
//	           with args and env, as a host starts a local server)
//	pin        v1: "" for the SDK's own version, or a version to offer in
//	           initialize instead (how a host pinned to an older revision
//	           behaves; v1 has no option for it). v2: its versionNegotiation
//	           mode, "auto" (probe with server/discover, the 2026-07-28 way)
//	           or "" (its default, the 2025 initialize handshake)
//	hub        {url, token}: fakehub's admin API, for the steps with faults
//	steps      [{name, tool, args, faults}]: one tools/call each, with
//	           fakehub's faults set for that call only
//	probe      {tool, args}: called after every failed step, to show that
//	           the session is still usable
//
// Nothing here asserts: the Go test does, so that a failure names the Go
// expectation it broke.
import { readFileSync } from 'node:fs';

const plan = JSON.parse(readFileSync(process.argv[2], 'utf8'));

// The SDK line the plan names, loaded as a host would import it.
const { Client, StreamableHTTPClientTransport, StdioClientTransport } =
  plan.sdk === 'v2'
    ? { ...(await import('@modelcontextprotocol/client')), ...(await import('@modelcontextprotocol/client/stdio')) }
    : {
        ...(await import('@modelcontextprotocol/sdk/client/index.js')),
        ...(await import('@modelcontextprotocol/sdk/client/streamableHttp.js')),
        ...(await import('@modelcontextprotocol/sdk/client/stdio.js')),
      };

// wire records what crossed the transport beneath the SDK: the
// MCP-Protocol-Version headers sent and the last Retry-After (HTTP), the
// last JSON-RPC error code received and the version initialize negotiated.
const wire = { versions: new Set(), retryAfter: null, errorCode: null, negotiated: null };

// recordingFetch is the HTTP transport's fetch, watching headers.
async function recordingFetch(url, init) {
  const v = new Headers(init?.headers).get('mcp-protocol-version');
  if (v) wire.versions.add(v);
  const res = await fetch(url, init);
  const ra = res.headers.get('retry-after');
  if (ra) wire.retryAfter = ra;
  return res;
}

// WatchedTransport wraps the SDK's transport: it records the messages the
// server sends and, when pinned, offers the pinned version in initialize
// (the SDK always offers its latest and accepts any version it supports).
class WatchedTransport {
  constructor(inner, pin) {
    this.inner = inner;
    this.pin = pin;
    this.initID = undefined;
    this.handler = undefined;
    inner.onmessage = (msg, extra) => {
      if (msg.error) wire.errorCode = msg.error.code;
      if (msg.id !== undefined && msg.id === this.initID && msg.result) wire.negotiated = msg.result.protocolVersion;
      this.handler?.(msg, extra);
    };
  }
  start() { return this.inner.start(); }
  close() { return this.inner.close(); }
  send(msg, opts) {
    if (msg.method === 'initialize') {
      this.initID = msg.id;
      if (this.pin) msg = { ...msg, params: { ...msg.params, protocolVersion: this.pin } };
    }
    return this.inner.send(msg, opts);
  }
  setProtocolVersion(v) { this.inner.setProtocolVersion?.(v); }
  get sessionId() { return this.inner.sessionId; }
  set onmessage(fn) { this.handler = fn; }
  get onmessage() { return this.handler; }
  set onclose(fn) { this.inner.onclose = fn; }
  get onclose() { return this.inner.onclose; }
  set onerror(fn) { this.inner.onerror = fn; }
  get onerror() { return this.inner.onerror; }
}

// admin calls fakehub's admin API.
async function admin(method, path, body) {
  const res = await fetch(plan.hub.url + '/_fakehub/' + path, {
    method,
    headers: { Authorization: 'Bearer ' + plan.hub.token, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status !== 204) throw new Error(`fakehub ${method} ${path}: HTTP ${res.status}`);
}

// setFaults replaces fakehub's faults; clearing them also refills the rate
// limits a fault may have spent.
async function setFaults(faults) {
  await admin('PUT', 'faults', faults);
  if (faults.length === 0) await admin('POST', 'reset-rate-limits');
}

// call runs one tools/call and reports what the SDK surfaced: a result
// (isError or not) or a thrown error with its code.
async function call(client, tool, args) {
  wire.errorCode = null;
  wire.retryAfter = null;
  try {
    const res = await client.callTool({ name: tool, arguments: args });
    const first = res.content?.[0];
    return {
      outcome: 'result',
      isError: res.isError === true,
      text: first?.type === 'text' ? first.text : null,
      meta: res._meta ?? null,
      structuredContent: res.structuredContent ?? null,
      retryAfter: wire.retryAfter,
    };
  } catch (e) {
    return {
      outcome: 'error',
      error: { name: e?.name ?? null, code: e?.code ?? null, message: String(e?.message ?? e), data: e?.data ?? null },
      wireCode: wire.errorCode,
      retryAfter: wire.retryAfter,
    };
  }
}

async function main() {
  let inner;
  if (plan.transport === 'http') {
    inner = new StreamableHTTPClientTransport(new URL(plan.url), { fetch: recordingFetch });
  } else {
    inner = new StdioClientTransport({ command: plan.command, args: plan.args, env: plan.env, stderr: 'inherit' });
  }
  let client;
  if (plan.sdk === 'v2') {
    // v2 negotiates (and on 2026-07-28 sets the per-request _meta and
    // headers) itself: its transport is used as is.
    const opts = plan.pin ? { versionNegotiation: { mode: plan.pin } } : {};
    client = new Client({ name: 'e2e-ts-sdk-v2', version: '1.0.0' }, opts);
    await client.connect(inner);
  } else {
    client = new Client({ name: 'e2e-ts-sdk', version: '1.0.0' });
    await client.connect(new WatchedTransport(inner, plan.pin));
  }
  const negotiated = client.getNegotiatedProtocolVersion?.() ?? wire.negotiated;
  const out = { negotiated, serverInfo: client.getServerVersion() ?? null, tools: [], steps: [] };
  const listed = await client.listTools();
  out.tools = listed.tools.map((t) => ({ name: t.name, hasOutputSchema: t.outputSchema !== undefined }));
  for (const step of plan.steps) {
    if (step.faults) await setFaults(step.faults);
    let r;
    try {
      r = await call(client, step.tool, step.args);
    } finally {
      if (step.faults) await setFaults([]);
    }
    r.name = step.name;
    if (r.outcome === 'error' || r.isError) {
      // A host honours retryAfter before calling again.
      const retryAfter = r.meta?.['dev.ghops/error']?.data?.retryAfter ?? r.error?.data?.retryAfter ?? 0;
      if (retryAfter > 0) await new Promise((done) => setTimeout(done, retryAfter * 1000 + 100));
      const p = await call(client, plan.probe.tool, plan.probe.args);
      r.usableAfter = p.outcome === 'result' && !p.isError;
    }
    out.steps.push(r);
  }
  out.sentVersions = [...wire.versions].sort();
  await client.close();
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch((e) => {
  process.stderr.write(`tsclient: ${e?.stack ?? e}\n`);
  process.exit(1);
});
