import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Plugin } from 'vite';

/** Files worth compressing (text); images other than SVG are compressed already. */
const COMPRESSIBLE = /\.(js|mjs|css|html|svg|json|webmanifest|txt|xml)$/;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/**
 * Runs `first`, then writes a brotli (.br, quality 11) and a gzip (.gz, level 9) twin next to every text file of the build, once, so
 * the server sends them as they are (backend/src/http/frontend.ts) instead of compressing on every request.
 */
export function precompress(options: { first?: (outDir: string) => Promise<void> } = {}): Plugin {
  let outDir = 'dist';
  return {
    name: 'joy-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    async closeBundle() {
      // Files written after the bundle (the prerendered landing page) are compressed too: closeBundle hooks of
      // different plugins run in parallel, so they are written from here.
      await options.first?.(outDir);
      for (const file of filesUnder(outDir).filter((f) => COMPRESSIBLE.test(f))) {
        const content = readFileSync(file);
        writeFileSync(
          `${file}.br`,
          brotliCompressSync(content, {
            params: {
              [constants.BROTLI_PARAM_QUALITY]: 11,
              [constants.BROTLI_PARAM_SIZE_HINT]: content.length,
            },
          }),
        );
        writeFileSync(`${file}.gz`, gzipSync(content, { level: 9 }));
      }
    },
  };
}
