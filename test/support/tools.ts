import { pinTool } from '../../src/core/tools/toolPin';
import type { HarnessTool } from '../../src/core/tools/types';

/** A tool as the registry would expose it, its pin computed from its definition. */
export function harnessTool(tool: Omit<HarnessTool, 'pin'> & { readonly pin?: string }): HarnessTool {
  return { ...tool, pin: pinTool(tool).hash };
}
