import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of the test runner, without type declarations
import { parseChecks } from '../../conformance/checks.mjs';

describe('conformance checks.json', () => {
  it('counts only checks that ran: missing, broken, non-list and empty files are failures', () => {
    expect(parseChecks(undefined, 'x/checks.json')).toEqual({ problem: 'no x/checks.json' });
    expect(parseChecks('{', 'x/checks.json').problem).toMatch(/^x\/checks\.json is not valid JSON: /);
    expect(parseChecks('{"checks":[]}', 'x/checks.json')).toEqual({ problem: 'x/checks.json does not hold a list of checks' });
    expect(parseChecks('[]', 'x/checks.json')).toEqual({ problem: 'x/checks.json is empty: the scenario ran no checks' });
    expect(parseChecks('[{"id":"a","status":"SUCCESS"}]', 'x/checks.json')).toEqual({ checks: [{ id: 'a', status: 'SUCCESS' }] });
  });
});
