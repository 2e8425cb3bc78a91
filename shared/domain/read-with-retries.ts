/**
 * A read that decides what an ambiguous write did, tried again while the store is throttling
 * or failing: its answer matters more than its speed, and the SDK's own three tries may all
 * fall inside the same burst. Five more, 100 ms to 1.6 s apart (about 3 s in all).
 */
export async function readWithRetries<T>(read: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await read();
    } catch (error) {
      if (attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** (attempt - 1)));
    }
  }
}
