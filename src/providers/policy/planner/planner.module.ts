import { bindSeam } from '../../../core/contributions.js';
import { PluginModule } from '../../../core/plugin-module.js';
import { CallPlanner, CallPlannerConfig } from './call-planner.js';
import { LocalCallPlanner } from './local-call-planner.js';

/**
 * The call planner (`CallPlanner` → `LocalCallPlanner`). Transient: a tool
 * rebuilt after a plugin binds a sandbox, a policy or an approver gets a
 * planner that sees them (the planner keeps no state of its own).
 * `escalationRefusal` is the text a model's escalation gets where a
 * sandbox can never be widened (the container composition).
 */
export function plannerModule(config: CallPlannerConfig = {}): PluginModule {
  return new PluginModule(config.escalationRefusal === undefined ? 'planner:local' : 'planner:no-escalation', ({ bind }) => {
    bind(CallPlannerConfig).toConstantValue(Object.freeze({ ...config }));
    bindSeam(bind, CallPlanner).to(LocalCallPlanner).inTransientScope();
  });
}
