// The README's pictures are the runtime's real pages, written by `npm run docs:images` (scripts/screenshots.ts), never
// drawn by hand: every image the script declares is in docs/images/ as a real, non-blank PNG of the script's width,
// README.md shows each one, and README.md and docs/images/ hold no image the script does not make. No browser here:
// run `npm run docs:images` after changing a page, and commit the PNGs it writes.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { docsImages, imagesDir, viewport } from '../scripts/screenshots.js';
import { distinctColors } from './browser/helpers.js';

const repoRoot = fileURLToPath(new URL('../', import.meta.url));
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const declared = docsImages.map((image) => image.file);

/** The width and height of a PNG's IHDR chunk (which must come first); throws when the bytes are not a PNG. */
function pngSize(png: Buffer): { width: number; height: number } {
  if (png.subarray(0, 8).toString('hex') !== '89504e470d0a1a0a') throw new Error('no PNG signature');
  if (png.length < 33 || png.readUInt32BE(8) !== 13 || png.toString('latin1', 12, 16) !== 'IHDR') throw new Error('the first chunk is not a 13-byte IHDR');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

/** The docs/images/ files README.md shows, by Markdown `![…](docs/images/x.png)` or HTML `<img src="docs/images/x.png">`. */
function readmeImages(text = readme): string[] {
  const pattern = new RegExp(`(?:\\]\\(\\s*<?|\\bsrc\\s*=\\s*["']?)(?:\\./)?${imagesDir.replace('/', '\\/')}/([^)"'\\s>]+)`, 'g');
  return [...text.matchAll(pattern)].map((match) => match[1]!);
}

describe('the README images (npm run docs:images)', () => {
  it('declares stable, distinct .png names', () => {
    expect(declared.length).toBeGreaterThan(0);
    expect(new Set(declared).size).toBe(declared.length);
    for (const file of declared) expect(file).toMatch(/^[a-z0-9-]+\.png$/);
  });

  it.each(declared)('%s is in docs/images/: a non-blank PNG of the screenshot width, under 150 KB', (file) => {
    const path = `${repoRoot}${imagesDir}/${file}`;
    expect(existsSync(path), `${imagesDir}/${file} is missing: run npm run docs:images`).toBe(true);
    const png = readFileSync(path);
    const { width, height } = pngSize(png);
    expect(width).toBe(viewport.width);
    expect(height).toBeGreaterThan(0);
    expect(height).toBeGreaterThanOrEqual(viewport.height);
    expect(statSync(path).size).toBeLessThan(150 * 1024);
    // A screenshot of a page has text, borders and buttons: many colours. A blank or single-colour image has one.
    expect(distinctColors(png)).toBeGreaterThan(50);
  });

  it('finds Markdown and HTML image references (and not a mere mention)', () => {
    const sample = '![Sign in](docs/images/a.png) <img src="./docs/images/b.png" alt=""> ![x](<docs/images/c.png>) see docs/images/d.png';
    expect(readmeImages(sample)).toEqual(['a.png', 'b.png', 'c.png']);
  });

  it.each(declared)('README.md shows %s', (file) => {
    expect(readmeImages(), `README.md should show it, e.g. ![…](${imagesDir}/${file}) or <img src="${imagesDir}/${file}" alt="…">`).toContain(file);
  });

  it('README.md shows no docs/images/ picture that the script does not make', () => {
    expect(readmeImages().filter((file) => !declared.includes(file))).toEqual([]);
  });

  it('docs/images/ holds only what the script writes (no hand-made or stale images)', () => {
    const present = readdirSync(`${repoRoot}${imagesDir}`).filter((name) => !name.startsWith('.'));
    expect(present.filter((name) => !declared.includes(name))).toEqual([]);
  });
});
