// The container capability's public surface (re-exported by src/index.ts).
export * from './container-engine.js';
export { ContainerConfig, resolveContainerConfig, parseMount, type ResolvedContainerConfig } from './container-config.js';
export {
  DEFAULT_CAPABILITIES,
  DEFAULT_MEMORY,
  DEFAULT_PIDS_LIMIT,
  describeHardening,
  type Egress,
  type SeccompChoice,
} from './container-hardening.js';
export { sessionSeccompProfile } from './container-seccomp.js';
export { DockerContainerEngine } from './docker-container-engine.js';
export { ContainerShellExecutor, CONTAINER_ESCALATION_REFUSAL } from './container-shell-executor.js';
export { ContainerTerminalBackend } from './container-terminal-backend.js';
export { SessionContainers, SessionContainersToken, SESSION_BRIDGE_PREFIX, restartNotice, type LiveContainer } from './session-containers.js';
export { containerShellModule, containerTerminalModule, type ContainerShellModuleOptions } from './container-engine.module.js';
export { reapDeadInstances } from './orphan-reaper.js';
