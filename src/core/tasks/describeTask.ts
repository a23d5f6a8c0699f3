import type { HarnessTask } from './taskTypes';

/** How long ago `since` was, shortly: `12 s`, `3 min`, `2 h 5 min`, `1 d 4 h`. */
export function formatTaskAge(since: number, now: number): string {
  const s = Math.max(0, Math.floor((now - since) / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 24) return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d} d ${h % 24} h` : `${d} d`;
}

/**
 * A task in one line, as a tree row or a terminal shows it: its status, its progress, its age (when
 * `now` is given), then the server's message, last because it is the longest and a narrow view cuts
 * the end off. `input_required` reads as what it means for the person.
 */
export function describeTask(task: HarnessTask, now?: number): string {
  const status = task.status === 'input_required' ? 'waiting for input' : task.status;
  const p = task.progress;
  const progress = p ? (p.total ? `${Math.round((p.progress / p.total) * 100)}%` : String(p.progress)) : undefined;
  const message = task.statusMessage ?? p?.message;
  const age = now === undefined ? undefined : formatTaskAge(task.createdAt, now);
  return [status, progress, age, message !== status ? message : undefined].filter(Boolean).join(' · ');
}
