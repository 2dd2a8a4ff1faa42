/**
 * The NetworkPolicy that isolates session pods: one per namespace, shared by
 * every server using it. Its own file so the package's public typings never
 * reach @kubernetes/client-node's (which need @types/ws in a consumer).
 */
export const ISOLATION_POLICY = 'dsh-tools-session-isolation';
