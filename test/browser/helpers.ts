// Shared parts of the browser tests: Debian's Chromium through playwright-core (never a downloaded browser),
// screenshots written as test artefacts, a small PNG reader to prove a screenshot is not blank, and axe-core scans.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inflateSync } from 'node:zlib';
import axe from 'axe-core';
import type { AxeResults, Result } from 'axe-core';
import { expect } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page, type Response } from 'playwright-core';

const chromiumPath = '/usr/bin/chromium';

/** Launches headless Chromium; one per test file, closed in afterAll. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(chromiumPath)) throw new Error(`${chromiumPath} is missing: install Debian's chromium (scripts/test-all.sh does)`);
  return chromium.launch({ executablePath: chromiumPath, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
}

/**
 * A fresh browser context (its own cookies) and a tab in it, 640 × 900, in the given colour scheme; `onClose` is given
 * the context's close, for the file's afterAll.
 */
export async function openPage(
  browser: Browser,
  onClose: (close: () => Promise<void>) => void,
  options: { colorScheme?: 'light' | 'dark'; javaScriptEnabled?: boolean } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ colorScheme: options.colorScheme ?? 'light', javaScriptEnabled: options.javaScriptEnabled ?? true, viewport: { width: 640, height: 900 } });
  // Fail within the test's own timeout, with Playwright's message, when an element never shows up.
  context.setDefaultTimeout(5_000);
  onClose(() => context.close());
  return { context, page: await context.newPage() };
}

/** Clicks a submit button and waits for the answer to the form's POST to `action` (before any redirect is followed). */
export async function submitForm(page: Page, button: string, action: string): Promise<Response> {
  const [response] = await Promise.all([
    page.waitForResponse((candidate) => candidate.request().method() === 'POST' && new URL(candidate.url()).pathname === action),
    page.getByRole('button', { name: button, exact: true }).click(),
  ]);
  await page.waitForLoadState();
  return response;
}

/** The user of the context's session, from GET `<url>/auth/session` (null when signed out). */
export async function sessionUserOf(context: BrowserContext, url: string): Promise<{ email?: string; name?: string } | null> {
  const response = await context.request.get(`${url}/auth/session`);
  expect(response.status()).toBe(200);
  const session = (await response.json()) as { user?: { email?: string; name?: string } } | null;
  return session?.user ?? null;
}

/** test-results/screenshots/ (gitignored). */
export const screenshotsDir = fileURLToPath(new URL('../../test-results/screenshots/', import.meta.url));

/** Screenshots the whole page into test-results/screenshots/<name>.png; returns the PNG. */
export async function saveScreenshot(page: Page, name: string): Promise<Buffer> {
  await mkdir(screenshotsDir, { recursive: true });
  const png = await page.screenshot({ fullPage: true });
  await writeFile(join(screenshotsDir, `${name}.png`), png);
  return png;
}

/** Width, height and RGBA pixels of an 8-bit, non-interlaced PNG (what Chromium writes). */
export function decodePng(png: Buffer): { width: number; height: number; pixels: Buffer } {
  if (png.subarray(0, 8).toString('hex') !== '89504e470d0a1a0a') throw new Error('not a PNG');
  let offset = 8;
  let header: Buffer | undefined;
  const data: Buffer[] = [];
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('latin1', offset + 4, offset + 8);
    const body = png.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') header = body;
    if (type === 'IDAT') data.push(body);
    offset += length + 12;
  }
  if (!header) throw new Error('PNG without IHDR');
  const width = header.readUInt32BE(0);
  const height = header.readUInt32BE(4);
  const [bitDepth, colorType, , , interlace] = header.subarray(8, 13);
  const channels = colorType === 6 ? 4 : colorType === 2 ? 3 : 0;
  if (bitDepth !== 8 || channels === 0 || interlace !== 0) throw new Error(`unsupported PNG (depth ${bitDepth}, colour type ${colorType})`);
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * channels;
  const rows = Buffer.alloc(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    for (let x = 0; x < stride; x++) {
      const value = raw[y * (stride + 1) + 1 + x]!;
      const left = x >= channels ? rows[y * stride + x - channels]! : 0;
      const up = y > 0 ? rows[(y - 1) * stride + x]! : 0;
      const upLeft = x >= channels && y > 0 ? rows[(y - 1) * stride + x - channels]! : 0;
      let predicted = 0;
      if (filter === 1) predicted = left;
      else if (filter === 2) predicted = up;
      else if (filter === 3) predicted = (left + up) >> 1;
      else if (filter === 4) {
        const estimate = left + up - upLeft;
        const [a, b, c] = [Math.abs(estimate - left), Math.abs(estimate - up), Math.abs(estimate - upLeft)];
        predicted = a <= b && a <= c ? left : b <= c ? up : upLeft;
      }
      rows[y * stride + x] = (value + predicted) & 0xff;
    }
  }
  const pixels = Buffer.alloc(width * height * 4, 0xff);
  for (let index = 0; index < width * height; index++) rows.copy(pixels, index * 4, index * channels, index * channels + 3);
  return { width, height, pixels };
}

/** How many distinct colours a PNG has (a blank or single-colour screenshot has 1). */
export function distinctColors(png: Buffer): number {
  const { pixels } = decodePng(png);
  const colors = new Set<number>();
  for (let offset = 0; offset < pixels.length; offset += 4) colors.add(pixels.readUInt32BE(offset));
  return colors.size;
}

/** The colour of the pixel at (x, y) as `rgb(r, g, b)`. */
export function pixelAt(png: Buffer, x: number, y: number): string {
  const { width, pixels } = decodePng(png);
  const offset = (y * width + x) * 4;
  return `rgb(${pixels[offset]}, ${pixels[offset + 1]}, ${pixels[offset + 2]})`;
}

/**
 * Runs axe-core on the page against WCAG 2.2 A/AA and best practices. axe is evaluated through the DevTools
 * protocol, which the page's Content-Security-Policy does not govern, so the page is scanned as users see it.
 */
export async function scanAccessibility(page: Page): Promise<AxeResults> {
  await page.evaluate(axe.source);
  return page.evaluate(() =>
    (globalThis as unknown as { axe: typeof axe }).axe.run({
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] },
    }),
  );
}

/** The violations of a scan at the given impacts, as short lines that read well in a failed assertion. */
export function violationsOf(results: AxeResults, impacts: readonly string[] = ['serious', 'critical']): string[] {
  return results.violations
    .filter((violation: Result) => impacts.includes(violation.impact ?? ''))
    .flatMap((violation) => violation.nodes.map((node) => `${violation.impact} ${violation.id}: ${node.target.join(' ')} (${node.failureSummary ?? violation.help})`));
}

/** The label of every visible field (input or select), in page order; fails when one has no single `<label for=id>`. */
export async function labelsOfFields(page: Page): Promise<string[]> {
  const fields = await page.locator('input:not([type=hidden]), select').all();
  const labels: string[] = [];
  for (const field of fields) {
    const id = await field.getAttribute('id');
    expect(id, `field ${await field.getAttribute('name')} has an id for its label`).toBeTruthy();
    const label = page.locator(`label[for="${id}"]`);
    expect(await label.count(), `field ${id} has one label`).toBe(1);
    labels.push((await label.textContent())?.trim() ?? '');
  }
  return labels;
}
