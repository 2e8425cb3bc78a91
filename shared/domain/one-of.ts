/** A type guard for a value read back from storage: is it one of these literals? */
export const isOneOf =
  <const T>(values: readonly T[]) =>
  (value: unknown): value is T =>
    (values as readonly unknown[]).includes(value);
