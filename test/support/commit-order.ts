import type { Received } from './receiver';

/** The task a delivery is about. */
export const taskOf = (r: Received) => r.json.data.id as string;

/** The version a delivery carries: the tests title a task `v0` when they create it, then `v1`, `v2`, ... as they change it. */
export const versionOf = (r: Received) => Number((r.json.data.title as string).slice(1));

/**
 * §20's check (docs/decisions.md#ordered-delivery), per task over every request it got: each is of
 * the earliest version due not yet answered 2xx (none arrives while an earlier one is retried, and
 * the answered ones come in commit order), and every version due was answered. `versionsDue` lists a
 * task's versions in commit order; requests of other versions (a change whose request failed, made or
 * not) are left out. `status` is what the receiver answered each request, when it did not answer all
 * 200. A repeat of a delivery already answered (the same deliveryId: an attempt made again after its
 * worker was taken for dead) is a duplicate, which receivers drop, not a delivery out of order.
 */
export function expectCommitOrder(
  received: Received[],
  taskIds: string[],
  versionsDue: (taskId: string) => readonly number[],
  status?: ReadonlyMap<Received, number>,
) {
  const answered = new Set<string>();
  for (const taskId of taskIds) {
    const due = versionsDue(taskId);
    let next = 0;
    const out: string[] = [];
    for (const r of received.filter((x) => taskOf(x) === taskId && due.includes(versionOf(x)))) {
      if (answered.has(r.json.deliveryId)) continue;
      const version = versionOf(r);
      if (version !== due[next]) out.push(`v${version} arrived while v${due[next]} was due`);
      if (version === due[next] && (status ? status.get(r) : 200) === 200) {
        answered.add(r.json.deliveryId);
        next += 1;
      }
    }
    expect({ taskId, out, answered: next }).toEqual({ taskId, out: [], answered: due.length });
  }
}
