/**
 * `work`'s answer, or the error `late()` makes when none came within `ms`: for calls whose other end may never
 * answer (a hung server, a partner, a backend whose driver waits for its reconnection). The timer goes either way;
 * an answer or failure after the deadline is no longer awaited.
 */
export async function within<T>(work: Promise<T>, ms: number, late: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(late()), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
    work.catch(() => undefined);
  }
}
