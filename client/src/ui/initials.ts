/**
 * A person's initials, for a face not drawn yet or a seat on a plan: "Ada Park" -> "AP".
 *
 * ```ts
 * initials('Nora van Lind'); // "NV"
 * ```
 */
export const initials = (name: string): string =>
  name
    .split(/\s+/)
    .map((w) => w[0] ?? '')
    .join('')
    .slice(0, 2)
    .toUpperCase();
