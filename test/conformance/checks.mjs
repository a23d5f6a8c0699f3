// Reading a conformance scenario's checks.json, kept apart from the runner so it can be unit-tested.

/**
 * The checks of one scenario, or why there are none to count. A scenario passes only on checks
 * that ran: a missing, unreadable or empty checks file is a failure, never a pass.
 */
export function parseChecks(text, name) {
  if (text === undefined) return { problem: `no ${name}` };
  let checks;
  try {
    checks = JSON.parse(text);
  } catch (err) {
    return { problem: `${name} is not valid JSON: ${err.message}` };
  }
  if (!Array.isArray(checks)) return { problem: `${name} does not hold a list of checks` };
  if (checks.length === 0) return { problem: `${name} is empty: the scenario ran no checks` };
  return { checks };
}
