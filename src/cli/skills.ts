import { errorMessage } from '../core/base/errors';
import { SkillRefusedError, type McpHarness } from '../core';
import { CALL_EXIT } from './commands';
import type { CliOptions } from './CliOptions';
import { oneLine, renderTable } from './table';

/** `skills`: every skill the servers offer (only listed: no file is read), and entries that were refused. */
export async function runSkills(harness: McpHarness, options: CliOptions): Promise<number> {
  const { skills, problems } = await harness.skills();
  for (const p of problems) process.stderr.write(`${p.server}: ${p.message}\n`);
  if (options.json) return print(JSON.stringify({ skills, problems }, null, 2));
  if (skills.length === 0) return print(problems.length ? 'No skill could be listed.' : 'No server offers skills.');
  return print(renderTable(['SERVER', 'SKILL', 'FILES', 'DESCRIPTION'], skills.map((s) => [s.server, s.name, s.dynamic ? 'dynamic' : String(s.files.length), oneLine(s.description, 70)])));
}

/** `skill SERVER NAME`: reads every file of the skill, checks each against the manifest, prints its instructions. 1 when refused. */
export async function runSkill(harness: McpHarness, options: CliOptions, server: string, name: string): Promise<number> {
  if (!harness.servers().some((s) => s.name === server)) {
    process.stderr.write(`no server named "${server}" (configured: ${harness.servers().map((s) => s.name).join(', ') || 'none'})\n`);
    return CALL_EXIT.usage;
  }
  try {
    const skill = await harness.getSkill(server, name);
    if (options.json) return print(JSON.stringify({ ...skill, contents: Object.fromEntries(skill.contents) }, null, 2));
    const verified = skill.dynamic ? 'dynamic skill: its server publishes no digests, nothing was verified' : `${skill.files.length} file(s), each matching its size and SHA-256 digest`;
    process.stdout.write(`${skill.name} (${skill.server}): ${skill.description}\n${verified}\n`);
    for (const f of skill.files) process.stdout.write(`  ${f.uri}  ${f.size} bytes  ${f.digest}\n`);
    return print(`\n${skill.instructions}`);
  } catch (err) {
    process.stderr.write(`${errorMessage(err)}\n`);
    return err instanceof SkillRefusedError && err.reason === 'unknown' ? CALL_EXIT.usage : CALL_EXIT.failed;
  }
}

function print(text: string): number {
  process.stdout.write(`${text}\n`);
  return CALL_EXIT.ok;
}
