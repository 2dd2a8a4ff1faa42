// The container capability's public surface (re-exported by src/index.ts).
export * from '../../exec/engine/container-engine.js';
export { ContainerConfig, resolveContainerConfig, parseMount, type ResolvedContainerConfig } from '../../exec/engine/container-config.js';
export {
  DEFAULT_CAPABILITIES,
  DEFAULT_MEMORY,
  DEFAULT_PIDS_LIMIT,
  describeHardening,
  type Egress,
  type SeccompChoice,
} from '../../exec/engine/container-hardening.js';
export { sessionSeccompProfile } from '../../exec/engine/container-seccomp.js';
export { DockerContainerEngine } from './docker-container-engine.js';
export { ContainerShellExecutor, CONTAINER_ESCALATION_REFUSAL } from '../../exec/engine/container-shell-executor.js';
export { ContainerTerminalBackend } from '../../exec/engine/container-terminal-backend.js';
export { SessionContainers, SessionContainersToken, SESSION_BRIDGE_PREFIX, restartNotice, type LiveContainer } from '../../exec/engine/session-containers.js';
export { containerShellModule, containerTerminalModule, type ContainerShellModuleOptions } from './docker.module.js';
export { reapDeadInstances } from '../../exec/engine/orphan-reaper.js';
