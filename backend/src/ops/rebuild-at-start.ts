import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { codeVersionKey } from '../read-models/read-model-store.port';
import { SqliteReadModelStore } from '../read-models/sqlite-read-model-store';

/**
 * Makes the embedded default's next start rebuild these projections from position 0 (their built code version
 * forgotten); false when there are no read models in DATA_DIR yet.
 */
export async function rebuildAtNextStart(dataDir: string | undefined, names: readonly string[]): Promise<boolean> {
  const file = join(resolve(dataDir ?? './data'), 'read-models.sqlite');
  if (!existsSync(file)) return false;
  const store = new SqliteReadModelStore(file);
  try {
    for (const name of names) await store.setCheckpoint(codeVersionKey(name), 0);
  } finally {
    await store.close();
  }
  return true;
}
