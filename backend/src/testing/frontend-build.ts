import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';

/** A frontend build as `vite build` leaves it: each text file with its .br and .gz twins (frontend/scripts/precompress.ts). */
export function writeBuild(dir: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    const file = join(dir, path);
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, text);
    writeFileSync(`${file}.br`, brotliCompressSync(Buffer.from(text)));
    writeFileSync(`${file}.gz`, gzipSync(Buffer.from(text)));
  }
}
