import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, McpHarness, SkillRefusedError } from '../../src/core';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { minimalServer, repoPath, tempDir, writeJson } from '../support/servers';

const skillsServer = repoPath('test/fixtures/servers/skills.mjs');

// Our SDK-built skills server (one good skill, one whose supporting file is tampered with, one whose
// SKILL.md grew) next to a server without skills.
describe('server skills', () => {
  const tag = processTag();
  const tmp = tempDir();
  let harness: McpHarness;

  beforeAll(async () => {
    writeJson(tmp.dir, 'ws/.vscode/mcp.json', {
      servers: {
        docs: { command: process.execPath, args: [skillsServer], env: tag.env },
        plain: { command: process.execPath, args: [minimalServer], env: tag.env },
      },
    });
    harness = await createHarness({ configFiles: [path.join(tmp.dir, 'ws/.vscode/mcp.json')] });
  });

  afterAll(async () => {
    await harness?.dispose();
    expect(await waitForNoProcesses(tag.alive)).toEqual([]);
    tmp.cleanup();
  });

  it('lists the skills of servers that offer them, reading none of their files', async () => {
    const { skills, problems } = await harness.skills();
    expect(skills.map((s) => `${s.server}/${s.name}`).sort()).toEqual(['docs/padded', 'docs/pdf-forms', 'docs/tampered']);
    const pdf = skills.find((s) => s.name === 'pdf-forms')!;
    expect(pdf).toMatchObject({ description: 'Fill PDF forms', uri: 'skill://pdf-forms/SKILL.md', dynamic: false });
    expect(pdf.files.map((f) => f.uri)).toEqual(['skill://pdf-forms/SKILL.md', 'skill://pdf-forms/references/FORMS.md']);
    expect(pdf.files[0].digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(problems).toEqual([]);
    expect((await harness.skills({ server: 'plain' })).skills).toEqual([]);
    expect((await harness.skills({ server: 'docs' })).skills).toHaveLength(3);
  });

  it('loads a skill whose every file matches its manifest', async () => {
    const skill = await harness.getSkill('docs', 'pdf-forms');
    expect(skill.instructions).toBe('# PDF forms\n\nRead references/FORMS.md, then fill each field in order.');
    expect(skill.contents.get('skill://pdf-forms/references/FORMS.md')).toBe('# Forms\n\nField names are case-sensitive.\n');
  });

  it('refuses a skill whose supporting file does not match its digest, naming the file', async () => {
    const err = await harness.getSkill('docs', 'tampered').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SkillRefusedError);
    expect(err).toMatchObject({ server: 'docs', skill: 'tampered', file: 'skill://tampered/references/NOTES.md', reason: 'digest' });
    expect((err as Error).message).toContain('SHA-256 digest does not match the manifest');
  });

  it('refuses a skill whose SKILL.md has a size the manifest does not list', async () => {
    const err = await harness.getSkill('docs', 'padded').catch((e: unknown) => e);
    expect(err).toMatchObject({ file: 'skill://padded/SKILL.md', reason: 'size' });
  });

  it('says which skills a server offers when asked for one it does not', async () => {
    const err = await harness.getSkill('docs', 'nope').catch((e: unknown) => e);
    expect(err).toMatchObject({ reason: 'unknown' });
    expect((err as Error).message).toBe('docs offers no skill named "nope" (it offers: pdf-forms, tampered, padded)');
  });

  it('says a server without the extension offers no skills', async () => {
    const err = await harness.getSkill('plain', 'pdf-forms').catch((e: unknown) => e);
    expect(err).toMatchObject({ reason: 'unknown', message: 'plain offers no skills (it does not declare io.modelcontextprotocol/skills)' });
  });

  it('changes the manifest hash an approval is bound to when a file changes', async () => {
    const { skills } = await harness.skills();
    const hashes = new Set(skills.map((s) => s.manifestHash));
    expect(hashes.size).toBe(skills.length);
    for (const h of hashes) expect(h).toMatch(/^[0-9a-f]{64}$/);
  });
});
