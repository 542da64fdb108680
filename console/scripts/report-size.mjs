// Prints what the first page load ships: each JavaScript and CSS file of dist/assets and the gzipped total of the
// JavaScript, which must stay within 300 KB (the build fails past it).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const LIMIT_BYTES = 300 * 1024;
const assets = fileURLToPath(new URL('../dist/assets', import.meta.url));
let jsGzip = 0;
for (const name of readdirSync(assets).sort()) {
  const bytes = readFileSync(join(assets, name));
  const gzip = gzipSync(bytes).length;
  if (name.endsWith('.js')) jsGzip += gzip;
  process.stdout.write(`console: ${name} ${(bytes.length / 1024).toFixed(1)} KB, ${(gzip / 1024).toFixed(1)} KB gzipped\n`);
}
process.stdout.write(`console: first page load ships ${(jsGzip / 1024).toFixed(1)} KB of JavaScript gzipped (limit ${LIMIT_BYTES / 1024} KB)\n`);
if (jsGzip > LIMIT_BYTES) {
  process.stderr.write('console: the JavaScript is over its 300 KB budget\n');
  process.exit(1);
}
