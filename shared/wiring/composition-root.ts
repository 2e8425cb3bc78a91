/** What `composeAdapters` answers: each builder's adapter, under the builder's name. */
export type ComposedAdapters<B> = {
  readonly [K in keyof B]: B[K] extends (sources: never) => infer A ? A : never;
};

/**
 * The composition root: the adapters named by `builders`, each built from `sources` the first
 * time it is read and kept from then on, so a handler builds, and a bundle holds, only the
 * adapters it takes. Every caller builds its adapters here: the Lambda entries with the
 * builders they need (each beside its adapter, in its feature's `adapters/`), and the local stage, the operator CLI and the bench
 * with the whole set (`SERVICE_ADAPTER_BUILDERS`) or a part of it, overriding only what they
 * must by putting a builder of their own under the same name. A source a builder needs and
 * `sources` lacks does not compile.
 */
export function composeAdapters<
  S extends object,
  const B extends Readonly<Record<string, (sources: NoInfer<S>) => unknown>>,
>(sources: S, builders: B): ComposedAdapters<B> {
  const adapters = {};
  for (const [name, build] of Object.entries(builders)) {
    let built: { readonly adapter: unknown } | undefined;
    Object.defineProperty(adapters, name, {
      enumerable: true,
      // A build that throws is tried again on the next read.
      get: () => (built ??= { adapter: build(sources) }).adapter,
    });
  }
  return adapters as ComposedAdapters<B>;
}
