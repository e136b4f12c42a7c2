#!/usr/bin/env node
// Writes a brotli (.br) and a gzip (.gz) copy beside every text file of the build, at their best levels, once at
// build time: the service sends the copy the browser accepts (@fastify/static `preCompressed`) and compresses nothing
// per request. Last, it writes dist/.build-stamp, which scripts/build-if-changed.mjs compares with the console's
// sources (so `npm start` after `npm run build` does not build the console again).
//
// usage: node scripts/compress.mjs <folder>
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const TEXT = /\.(html|js|mjs|css|json|svg|txt|map)$/;

function visit(dir) {
  let files = 0;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      files += visit(path);
      continue;
    }
    if (!TEXT.test(name)) continue;
    const data = readFileSync(path);
    writeFileSync(`${path}.gz`, gzipSync(data, { level: 9 }));
    writeFileSync(
      `${path}.br`,
      brotliCompressSync(data, {
        params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: data.length },
      }),
    );
    files += 1;
  }
  return files;
}

const dir = process.argv[2] ?? 'dist';
const count = visit(dir);
writeFileSync(
  join(dir, '.build-stamp'),
  "console/dist was built from the console's sources as they were at this file's time\n",
);
process.stdout.write(`compress: ${count} files of ${dir} as .br and .gz\n`);
