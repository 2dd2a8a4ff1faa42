import 'reflect-metadata';

/**
 * `dsh-tools/mcp`: the MCP server, for embedding in your own process. A
 * subpath of its own so the root entry's typings stay free of the MCP SDK
 * and zod (a consumer's type-check pays for them only when it imports this).
 */
export { McpConnection, type McpConnectionOptions } from './mcp/mcp-connection.js';
export { serveStdio, type RunningServer, type StdioServeOptions } from './mcp/stdio-server.js';
export { serveHttp, MCP_PATH, type HttpServeOptions, type RunningHttpServer } from './mcp/http-server.js';
export { McpElicitationAnswerer, mcpApprovalModule } from './mcp/elicitation-answerer.js';
export { serveMetrics, startMetricsListener, METRICS_PATH, type MetricsAccess, type MetricsListener } from './mcp/metrics-endpoint.js';
export { toCallToolResult, toStructuredContent } from './mcp/call-result.js';
export { resolveHttpToken, type HttpToken, type TokenOptions } from './mcp/http-auth.js';
export { CallGate, type CallGateLimits } from './mcp/call-gate.js';
export { runUntilStopped, type LifecycleOptions } from './mcp/serve-lifecycle.js';
