/** The item at `index` of a list read off the wire; fails the test, by name, if the list is shorter. */
export function nth<T>(list: readonly T[], index: number): T {
  if (index >= list.length)
    throw new Error(`expected an item at ${index}, got ${list.length}: ${JSON.stringify(list)}`);
  return list[index] as T;
}
