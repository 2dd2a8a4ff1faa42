// The CLI's composition file, loaded through the library with the CLI's
// checks, composed with the consumer's own tool.
import 'reflect-metadata';
import { configModules, createHost, loadConfigFile, type DshHost } from 'dsh-tools';
import { diskUsageModule } from './disk-usage.tool.js';

export async function hostFromConfigFile(file: string): Promise<DshHost> {
  const config = await loadConfigFile(file);   // YAML, or JSON for *.json
  return createHost(...(await configModules(config)), diskUsageModule());
}
