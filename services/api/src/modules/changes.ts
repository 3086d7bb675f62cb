/** The old values of the fields whose values differ between two records (for previousAttributes). */
export function previousAttributes<T extends object>(before: T, after: T, ignore: (keyof T)[] = ['updatedAt' as keyof T]): Partial<T> {
  const changed: Partial<T> = {};
  for (const key of Object.keys(after) as (keyof T)[]) {
    if (ignore.includes(key)) continue;
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) changed[key] = before[key];
  }
  return changed;
}
