import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { diagnoseServer } from '../../../src/core/diagnoseServer';
import { definition } from '../../support/definitions';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-harness-doctor-summary-'));
fs.writeFileSync(path.join(dir, 'mytool'), '#!/bin/sh\n', { mode: 0o755 });
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('diagnoseServer, its summary line', () => {
  it('says "no problems found" only when every finding is fine', async () => {
    const disabled = await diagnoseServer(definition('s', { command: 'mytool', disabled: true }), { env: { PATH: dir } });
    expect(disabled.map((d) => `${d.level} ${d.message}`)).toEqual(['warning disabled in the configuration', `ok command "mytool" found at ${path.join(dir, 'mytool')}`]);
  });

  it('looks a command up on this platform when none is given, and on no PATH finds nothing', async () => {
    const found = await diagnoseServer(definition('s', { command: 'mytool' }), { env: { PATH: dir } });
    expect(found[0]).toMatchObject({ level: 'ok', message: `command "mytool" found at ${path.join(dir, 'mytool')}` });
    const nowhere = await diagnoseServer(definition('s', { command: 'mytool' }), { env: {} });
    expect(nowhere[0]).toMatchObject({ level: 'error', message: 'command "mytool" not found on PATH' });
  });
});
