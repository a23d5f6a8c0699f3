import { createHash } from 'node:crypto';
import { diffDefinitions, stableStringify, type ToolPin } from '../tools/toolPin';
import type { HarnessSkillFile, LoadedSkill } from './ServerSkills';

/**
 * Pins a skill's manifest the way a tool's definition is pinned: its `SKILL.md` URI, its frontmatter
 * and every file's digest and size, keyed by URI (so a diff names the file). Key and file order do
 * not change the hash; any change of content does.
 */
export function pinSkillManifest(uri: string, frontmatter: Readonly<Record<string, unknown>>, files: readonly HarnessSkillFile[]): ToolPin {
  const definition = stableStringify({ uri, frontmatter, files: Object.fromEntries(files.map((f) => [f.uri, { digest: f.digest, size: f.size }])) });
  return { hash: createHash('sha256').update(definition).digest('hex'), definition };
}

/** What an approval says of a skill as it is listed now. */
export type SkillApprovalStatus =
  | { readonly kind: 'approved' }
  | { readonly kind: 'new' }
  /** Approved once, but its manifest changed since: ask again, showing `diff` (`~ files.skill://…/NOTES.md.digest: … -> …`). */
  | { readonly kind: 'changed'; readonly diff: string };

/** Where approved manifests are kept (by `server` and skill name): memory, or a host's workspace state. */
export interface ISkillApprovalStore {
  get(key: string): string | undefined;
  set(key: string, manifest: string | undefined): void;
}

/** What an approval is checked against: a listed or loaded skill. */
export interface SkillApprovalSubject {
  readonly server: string;
  readonly name: string;
  readonly manifest: string;
}

/** Approvals of skills, each bound to the exact manifest approved: any change to it asks again. */
export class SkillApprovals {
  constructor(private readonly _store: ISkillApprovalStore = memoryStore()) {}

  check(skill: SkillApprovalSubject): SkillApprovalStatus {
    const approved = this._store.get(key(skill));
    if (approved === undefined) return { kind: 'new' };
    return approved === skill.manifest ? { kind: 'approved' } : { kind: 'changed', diff: diffDefinitions(approved, skill.manifest) };
  }

  approve(skill: SkillApprovalSubject): void {
    this._store.set(key(skill), skill.manifest);
  }

  revoke(skill: Pick<SkillApprovalSubject, 'server' | 'name'>): void {
    this._store.set(key(skill), undefined);
  }
}

/**
 * A loaded skill's instructions as the model gets them: tagged with the server they come from, so
 * the model (and a reader of the transcript) can tell them from the user's words.
 */
export function skillInstructions(skill: Pick<LoadedSkill, 'server' | 'name' | 'instructions'>): string {
  const attr = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  const body = skill.instructions.replace(/<\/skill>/gi, '<\\/skill>');
  return `<skill server="${attr(skill.server)}" name="${attr(skill.name)}">\n${body}\n</skill>`;
}

function key(skill: Pick<SkillApprovalSubject, 'server' | 'name'>): string {
  return JSON.stringify([skill.server, skill.name]);
}

function memoryStore(): ISkillApprovalStore {
  // A value set to undefined reads as undefined: that is all a revoke needs here.
  const map = new Map<string, string | undefined>();
  return { get: (k) => map.get(k), set: (k, v) => void map.set(k, v) };
}
