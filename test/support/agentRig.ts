import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { McpHarness } from '../../src/core';
import { FakeModelServer } from './fakeModelServer';
import { processTag, waitForNoProcesses } from './leaks';
import { tempDir } from './servers';

/**
 * What a suite that drives the real agent loop needs: a loopback model, a temp folder, a process
 * tag for its servers, and the harnesses it opened (disposed after each test). Call it at the top
 * of a test file: it registers the suite's hooks, and the suite's end proves that no server it
 * started outlived it.
 */
export function agentRig(prefix: string) {
  const rig = {
    tag: processTag(),
    tmp: tempDir(prefix),
    model: new FakeModelServer(),
    modelUrl: '',
    harnesses: [] as McpHarness[],
  };
  beforeAll(async () => {
    rig.modelUrl = `${await rig.model.start()}/v1`;
  });
  afterEach(async () => {
    await Promise.all(rig.harnesses.splice(0).map((h) => h.dispose()));
  });
  afterAll(async () => {
    await rig.model.stop();
    expect(await waitForNoProcesses(rig.tag.alive, 10_000)).toEqual([]);
    rig.tmp.cleanup();
  });
  return rig;
}
