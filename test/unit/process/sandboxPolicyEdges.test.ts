import { describe, expect, it } from 'vitest';
import { buildSandboxPolicy, describeSandboxPolicy, sandboxUnavailableReason, type SandboxPolicy } from '../../../src/core/process/sandbox/sandboxPolicy';

const context = { workspaceFolders: ['/home/ann/project'], cwd: '/home/ann/project/server', userHome: '/home/ann' };

describe('buildSandboxPolicy paths', () => {
  it('takes a bare ~ as the home folder itself', () => {
    expect(buildSandboxPolicy({ filesystem: { allowWrite: ['~'] } }, context).filesystem.allowWrite).toEqual(['/home/ann']);
  });

  it('takes ~name and a ~ inside a path as ordinary relative paths', () => {
    const policy = buildSandboxPolicy({ filesystem: { allowWrite: ['~backup', 'logs/~/x'] } }, context);
    expect(policy.filesystem.allowWrite).toEqual(['/home/ann/project/server/~backup', '/home/ann/project/server/logs/~/x']);
  });

  it('resolves ~ from the working directory when there is no home folder', () => {
    const policy = buildSandboxPolicy({ filesystem: { allowWrite: ['~/cache', '~'] } }, { workspaceFolders: [], cwd: '/srv' });
    expect(policy.filesystem.allowWrite).toEqual(['/srv/~/cache', '/srv/~']);
  });

  it('lists each folder once, however many ways it is named', () => {
    const policy = buildSandboxPolicy(
      { filesystem: { allowWrite: ['out', './out', '/home/ann/project/server/out'], denyRead: ['~', '/home/ann/.ssh', '~/.ssh'] } },
      { ...context, workspaceFolders: ['/home/ann/project/server', '/home/ann/project/server/'], commandRoot: '.' },
    );
    expect(policy.filesystem).toEqual({
      denyRead: ['/home/ann', '/home/ann/.ssh'],
      allowRead: ['/home/ann/project/server'],
      allowWrite: ['/home/ann/project/server/out'],
      denyWrite: [],
    });
  });

  it('copies the allowed domains rather than sharing the entry\'s list', () => {
    const allowedDomains = ['api.example.com'];
    const policy = buildSandboxPolicy({ network: { allowedDomains } }, context);
    expect(policy.network).toEqual({ allowedDomains: ['api.example.com'], deniedDomains: [] });
    expect(policy.network.allowedDomains).not.toBe(allowedDomains);
  });
});

describe('sandboxUnavailableReason on Linux and macOS', () => {
  const none = () => false;

  it('names every missing Linux package, bubblewrap and socat and ripgrep', () => {
    expect(sandboxUnavailableReason('linux', none)).toBe(
      'sandboxing needs bubblewrap, socat, ripgrep, which are not installed (apt-get install bubblewrap socat ripgrep)',
    );
  });

  it('looks for rg on Linux and names its package ripgrep', () => {
    expect(sandboxUnavailableReason('linux', (c) => c !== 'rg')).toBe('sandboxing needs ripgrep, which is not installed (apt-get install ripgrep)');
  });

  it('names every missing macOS tool with the brew command', () => {
    expect(sandboxUnavailableReason('darwin', none)).toBe(
      'sandboxing needs sandbox-exec, ripgrep, which are not installed (brew install sandbox-exec ripgrep)',
    );
  });

  it('looks for sandbox-exec on macOS', () => {
    expect(sandboxUnavailableReason('darwin', (c) => c !== 'sandbox-exec')).toBe(
      'sandboxing needs sandbox-exec, which is not installed (brew install sandbox-exec)',
    );
    expect(sandboxUnavailableReason('darwin', () => true)).toBeUndefined();
  });

  it('asks only for the commands of the platform', () => {
    const asked: string[] = [];
    sandboxUnavailableReason('darwin', (c) => (asked.push(c), true));
    sandboxUnavailableReason('linux', (c) => (asked.push(c), true));
    expect(asked).toEqual(['sandbox-exec', 'rg', 'bwrap', 'socat', 'rg']);
  });

  it('names a platform it does not know as Node does', () => {
    expect(sandboxUnavailableReason('freebsd', () => true)).toBe('sandboxing is not available on freebsd (only Linux and macOS)');
  });
});

describe('describeSandboxPolicy', () => {
  const policy = (filesystem: Partial<SandboxPolicy['filesystem']>, allowedDomains: string[] = []): SandboxPolicy => ({
    filesystem: { denyRead: [], allowRead: [], allowWrite: [], denyWrite: [], ...filesystem },
    network: { allowedDomains, deniedDomains: [] },
  });

  it('says the server may read everything when nothing is hidden', () => {
    expect(describeSandboxPolicy(policy({ allowRead: ['/srv'] }))).toBe('sandboxed: may read everything; may write nowhere; may connect to nothing');
  });

  it('lists every hidden, readable and writable folder and every domain', () => {
    const line = describeSandboxPolicy(
      policy({ denyRead: ['/home/ann', '/etc/secret'], allowRead: ['/ws', '/opt/node'], allowWrite: ['/ws/out', '/tmp/cache'] }, ['a.example', 'b.example:8080']),
    );
    expect(line).toBe(
      'sandboxed: may read everything except /home/ann, /etc/secret (but still /ws, /opt/node); may write /ws/out, /tmp/cache; may connect to a.example, b.example:8080',
    );
  });
});
