import 'reflect-metadata';

/**
 * `dsh-tools/mcp`: the MCP server, for embedding in your own process. A
 * subpath of its own so the root entry's typings stay free of the MCP SDK
 * and zod (a consumer's type-check pays for them only when it imports this).
 */
export { McpConnection, type McpConnectionOptions } from './mcp/legacy/mcp-connection.js';
export { serveStdio, type RunningServer, type StdioServeOptions } from './mcp/stdio-server.js';
export { serveHttp, MCP_PATH, type HttpServeOptions, type RunningHttpServer } from './mcp/http-server.js';
export { McpElicitationAnswerer, mcpApprovalModule } from './mcp/approvals/elicitation-answerer.js';
export { serveMetrics, startMetricsListener, METRICS_PATH, type MetricsAccess, type MetricsListener } from './mcp/endpoints/metrics-endpoint.js';
export { toCallToolResult, toStructuredContent } from './mcp/calls/call-result.js';
export { resolveHttpToken, type HttpToken, type TokenOptions } from './mcp/access/http-auth.js';
export { CallGate, type CallGateLimits } from './mcp/calls/call-gate.js';
export { runUntilStopped, type LifecycleOptions } from './mcp/serve-lifecycle.js';
