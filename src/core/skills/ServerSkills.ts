import { SkillVerificationError, type Skill, type SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { errorMessage } from '../base/errors';
import type { McpCallOptions } from '../mcp/McpSession';
import { pinSkillManifest } from './skillApproval';

/** The Skills extension (SEP-2640) as servers declare it. */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

/** One file of a skill as its server's manifest lists it. */
export interface HarnessSkillFile {
  readonly uri: string;
  /** `sha256:<hex>`. */
  readonly digest: string;
  readonly size: number;
}

/** A skill a server offers, as `skills/list` described it (nothing of it has been read yet). */
export interface HarnessSkill {
  readonly server: string;
  readonly name: string;
  readonly description: string;
  /** The skill's `SKILL.md`. */
  readonly uri: string;
  /** Every file of the skill, `SKILL.md` first. */
  readonly files: readonly HarnessSkillFile[];
  /** A "dynamic" skill publishes no digests: its `SKILL.md` is read unverified, and nothing else is read. */
  readonly dynamic: boolean;
  /** Binds an approval to this exact manifest: any change to a file, a digest or the frontmatter changes it. */
  readonly manifestHash: string;
  /** The manifest the hash covers (stable JSON), kept with an approval so a later change can be shown. */
  readonly manifest: string;
}

/** A skill whose files were all read and matched their manifest's size and SHA-256 digest. */
export interface LoadedSkill extends HarnessSkill {
  /** The markdown of `SKILL.md` after its frontmatter: what the model is told to do. */
  readonly instructions: string;
  /** The text of each file, by URI (binary files: their size only). */
  readonly contents: ReadonlyMap<string, string | undefined>;
}

/** A listing entry or a server that could not be listed; the rest of the listing still stands. */
export interface SkillListProblem {
  readonly server: string;
  readonly message: string;
}

/** Why a skill was not loaded: which file, and why (`size`, `digest`, `frontmatter`, `unlisted`, or the read failed). */
export class SkillRefusedError extends Error {
  constructor(
    readonly server: string,
    readonly skill: string,
    readonly file: string | undefined,
    readonly reason: 'size' | 'digest' | 'frontmatter' | 'unlisted' | 'unknown' | 'unavailable',
    message: string,
  ) {
    super(message);
    this.name = 'SkillRefusedError';
  }
}

/** What skills need of a server's connection. */
export interface ISkillsConnection {
  readonly snapshot: { readonly state: { readonly kind: string }; readonly capabilities?: { readonly extensions?: Readonly<Record<string, unknown>> } };
  skills(options: McpCallOptions): Promise<SkillsClient>;
}

export interface ServerSkillsOptions {
  servers(): readonly string[];
  connection(server: string): ISkillsConnection | undefined;
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * Lists and loads the skills servers offer. Listing reads no file (a host must not fetch a skill
 * ahead of need); loading reads `SKILL.md` first and every other listed file only after it
 * matched, each checked against the manifest, so a tampered skill is refused before any more of
 * it is fetched.
 */
export class ServerSkills {
  constructor(private readonly _o: ServerSkillsOptions) {}

  /** The servers that are running and declare the Skills extension. */
  offering(): string[] {
    return this._o.servers().filter((server) => {
      const snapshot = this._o.connection(server)?.snapshot;
      return snapshot?.state.kind === 'running' && snapshot.capabilities?.extensions?.[SKILLS_EXTENSION] !== undefined;
    });
  }

  /** Every offered skill (`skills/list` on each server that declares the extension, or only `server`); one broken server or entry never hides the others. */
  async list(options: { server?: string; signal?: AbortSignal } = {}): Promise<{ skills: HarnessSkill[]; problems: SkillListProblem[] }> {
    const servers = this.offering().filter((s) => options.server === undefined || s === options.server);
    const results = await Promise.all(servers.map((server) => this.listServer(server, options)));
    return { skills: results.flatMap((r) => r.skills), problems: results.flatMap((r) => r.problems) };
  }

  /** The skills of one server; entries the manifest rules refuse come back as problems naming the entry and the field. */
  async listServer(server: string, options: { signal?: AbortSignal } = {}): Promise<{ skills: HarnessSkill[]; problems: SkillListProblem[] }> {
    try {
      const client = await this._client(server, options.signal);
      const listing = await client.list({}, this._requestOptions(options.signal));
      return {
        skills: listing.skills.map((entry) => toHarnessSkill(server, entry)),
        problems: listing.invalid.map((bad) => ({ server, message: `skills/list entry #${bad.index}${bad.uri ? ` (${bad.uri})` : ''} was refused: ${bad.reason}` })),
      };
    } catch (err) {
      return { skills: [], problems: [{ server, message: `skills/list failed: ${errorMessage(err)}` }] };
    }
  }

  /**
   * Loads one skill by its name (or its `SKILL.md` URI, listed or not, through `skills/get`): reads
   * its files through `resources/read` and checks each against the manifest.
   * @throws SkillRefusedError naming the file and the reason when any check fails.
   */
  async load(server: string, name: string, options: { signal?: AbortSignal } = {}): Promise<LoadedSkill> {
    const client = await this._client(server, options.signal);
    if (!client.supported) throw new SkillRefusedError(server, name, undefined, 'unknown', `${server} offers no skills (it does not declare ${SKILLS_EXTENSION})`);
    const listing = await client.list({}, this._requestOptions(options.signal)).catch((err: unknown) => {
      throw new SkillRefusedError(server, name, undefined, 'unavailable', `${server}: skills/list failed: ${errorMessage(err)}`);
    });
    let entry = listing.skills.find((s) => s.frontmatter.name === name || s.uri === name);
    if (!entry && name.includes('://')) {
      entry = (
        await client.get(name, this._requestOptions(options.signal)).catch((err: unknown) => {
          throw new SkillRefusedError(server, name, name, 'unknown', `${server}: skills/get ${name} failed: ${errorMessage(err)}`);
        })
      ).skill;
    }
    if (!entry) {
      const known = listing.skills.map((s) => s.frontmatter.name).join(', ');
      throw new SkillRefusedError(server, name, undefined, 'unknown', `${server} offers no skill named "${name}"${known ? ` (it offers: ${known})` : ''}`);
    }
    const skill = toHarnessSkill(server, entry);
    const contents = new Map<string, string | undefined>();
    // Stryker disable next-line StringLiteral: always replaced, as every entry the SDK accepts lists SKILL.md (or is dynamic, and SKILL.md is the one file read)
    let instructions = '';
    // SKILL.md first: a skill whose own file fails is refused before any other file is fetched.
    for (const file of skill.dynamic ? [{ uri: skill.uri }] : skill.files) {
      try {
        const read = await client.read(entry, file.uri, this._requestOptions(options.signal));
        contents.set(file.uri, read.text);
        // The SDK parses SKILL.md to check its frontmatter, so its body is always there.
        if (file.uri === skill.uri) instructions = read.body!.trim();
      } catch (err) {
        const reason = err instanceof SkillVerificationError ? err.reason : 'unavailable';
        throw new SkillRefusedError(server, skill.name, file.uri, reason, `skill "${skill.name}" of ${server} was refused: ${file.uri}: ${describeRefusal(reason)}: ${errorMessage(err)}`);
      }
    }
    return { ...skill, instructions, contents };
  }

  private async _client(server: string, signal: AbortSignal | undefined): Promise<SkillsClient> {
    const connection = this._o.connection(server);
    if (!connection) throw new SkillRefusedError(server, '', undefined, 'unknown', `no server named "${server}"`);
    const timeoutMs = this._o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    return connection.skills({ timeoutMs, maxTotalTimeoutMs: timeoutMs, ...(signal ? { signal } : {}) });
  }

  private _requestOptions(signal: AbortSignal | undefined): { timeout: number; signal?: AbortSignal } {
    return { timeout: this._o.timeoutMs ?? DEFAULT_TIMEOUT_MS, ...(signal ? { signal } : {}) };
  }
}

function describeRefusal(reason: SkillRefusedError['reason']): string {
  switch (reason) {
    case 'size':
      return 'size does not match the manifest';
    case 'digest':
      return 'SHA-256 digest does not match the manifest';
    case 'frontmatter':
      return 'frontmatter does not match the manifest';
    default:
      return 'could not be read';
  }
}

/** A listing entry as the harness shows it; `SKILL.md` first, then the other files in manifest order. */
export function toHarnessSkill(server: string, entry: Skill): HarnessSkill {
  const listed = Array.isArray(entry.resources) ? entry.resources : [];
  const own = listed.filter((r) => r.uri === entry.uri);
  const files = [...own, ...listed.filter((r) => r.uri !== entry.uri)].map((r) => ({ uri: r.uri, digest: r.digest, size: r.size }));
  const frontmatter = entry.frontmatter;
  const pin = pinSkillManifest(entry.uri, frontmatter, files);
  return {
    server,
    name: frontmatter.name,
    description: frontmatter.description,
    uri: entry.uri,
    files,
    dynamic: !Array.isArray(entry.resources),
    manifestHash: pin.hash,
    manifest: pin.definition,
  };
}
