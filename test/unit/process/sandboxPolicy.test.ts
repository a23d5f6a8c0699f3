import { describe, expect, it } from 'vitest';
import { describeSandbox } from '../../../src/core/config/describeSandbox';
import { describeViolation, shellQuote } from '../../../src/core/process/sandbox/describeViolation';
import { buildSandboxPolicy, commandInstallRoot, describeSandboxPolicy, sandboxUnavailableReason } from '../../../src/core/process/sandbox/sandboxPolicy';

describe('buildSandboxPolicy', () => {
  const context = { workspaceFolders: ['/home/ann/project'], cwd: '/home/ann/project/server', userHome: '/home/ann' };

  it('makes `true` ({}) read the workspace but not the rest of home, write nowhere, reach nothing', () => {
    expect(buildSandboxPolicy({}, context)).toEqual({
      filesystem: { denyRead: ['/home/ann'], allowRead: ['/home/ann/project', '/home/ann/project/server'], allowWrite: [], denyWrite: [] },
      network: { allowedDomains: [], deniedDomains: [] },
    });
  });

  it('resolves relative and ~ paths from the working directory and home, and keeps the command readable', () => {
    const policy = buildSandboxPolicy(
      { filesystem: { allowWrite: ['out', '~/cache'], denyRead: ['../secrets'] }, network: { allowedDomains: ['api.example.com'] } },
      { ...context, commandRoot: '/home/ann/.nvm/versions/node/v20' },
    );
    expect(policy.filesystem.allowWrite).toEqual(['/home/ann/project/server/out', '/home/ann/cache']);
    expect(policy.filesystem.denyRead).toEqual(['/home/ann', '/home/ann/project/secrets']);
    expect(policy.filesystem.allowRead).toContain('/home/ann/.nvm/versions/node/v20');
    expect(policy.network.allowedDomains).toEqual(['api.example.com']);
  });

  it('hides nothing by default when there is no home folder', () => {
    expect(buildSandboxPolicy({}, { workspaceFolders: [], cwd: '/srv' }).filesystem.denyRead).toEqual([]);
  });

  it('is described in one log line', () => {
    const line = describeSandboxPolicy(buildSandboxPolicy({ network: { allowedDomains: ['127.0.0.1:80'] } }, context));
    expect(line).toBe('sandboxed: may read everything except /home/ann (but still /home/ann/project, /home/ann/project/server); may write nowhere; may connect to 127.0.0.1:80');
  });
});

describe('sandboxUnavailableReason', () => {
  it('refuses Windows and other platforms', () => {
    expect(sandboxUnavailableReason('win32', () => true)).toBe('sandboxing is not available on Windows (only Linux and macOS)');
    expect(sandboxUnavailableReason('freebsd', () => true)).toContain('not available on freebsd');
  });

  it('names the Linux packages that are missing, and how to install them', () => {
    expect(sandboxUnavailableReason('linux', () => true)).toBeUndefined();
    expect(sandboxUnavailableReason('linux', (c) => c !== 'bwrap' && c !== 'socat')).toBe(
      'sandboxing needs bubblewrap, socat, which are not installed (apt-get install bubblewrap socat)',
    );
    expect(sandboxUnavailableReason('darwin', (c) => c !== 'rg')).toBe('sandboxing needs ripgrep, which is not installed (brew install ripgrep)');
  });
});

describe('commandInstallRoot', () => {
  it('takes the parent of a bin folder, else the folder itself', () => {
    expect(commandInstallRoot('/nowhere/opt/node/bin/node')).toBe('/nowhere/opt/node');
    expect(commandInstallRoot('/nowhere/tools/server')).toBe('/nowhere/tools');
  });
});

describe('describeViolation', () => {
  it('reads the runtime reports as sentences', () => {
    expect(describeViolation('deny network-outbound 127.0.0.1:4000 (host is not on the allow list)')).toBe(
      'sandbox: refused a connection to 127.0.0.1:4000 (host is not on the allow list)',
    );
    expect(describeViolation('deny openat /ws/planted.txt')).toBe('sandbox: refused to write /ws/planted.txt (openat)');
    expect(describeViolation('deny file-read-data /Users/ann/.ssh/id_rsa')).toBe('sandbox: refused to read /Users/ann/.ssh/id_rsa (file-read-data)');
    expect(describeViolation('deny mach-lookup com.apple.x')).toBe('sandbox: refused mach-lookup com.apple.x');
  });
});

describe('shellQuote', () => {
  it('leaves plain words alone and single-quotes the rest', () => {
    expect(shellQuote(['node', '/a b/s.mjs', "it's", '--x=1'])).toBe(`node '/a b/s.mjs' 'it'\\''s' --x=1`);
  });
});

describe('describeSandbox', () => {
  it('lists what a sandboxed entry may reach', () => {
    expect(describeSandbox({})).toEqual(['Reads: the workspace and system folders, not the rest of your home folder', 'Writes: nowhere', 'Network: none']);
    expect(describeSandbox({ filesystem: { allowWrite: ['out'], denyRead: ['~/.aws'] }, network: { allowedDomains: ['api.github.com'] } })).toEqual([
      'Reads: the workspace and system folders, not the rest of your home folder, never ~/.aws',
      'Writes: out',
      'Network: api.github.com',
    ]);
  });
});
