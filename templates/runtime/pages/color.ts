/**
 * Contrast arithmetic for the button colours of the built-in pages (`readableTextColor`).
 * @see https://www.w3.org/TR/WCAG22/#dfn-contrast-ratio
 */

/** An opaque colour as 0–255 channels. */
interface Rgb {
  red: number;
  green: number;
  blue: number;
}

// The named colours of CSS 2.1; any other name is not parsed (and keeps the text colour it was given).
const namedColors: Record<string, string> = {
  black: '#000000',
  silver: '#c0c0c0',
  gray: '#808080',
  grey: '#808080',
  white: '#ffffff',
  maroon: '#800000',
  red: '#ff0000',
  purple: '#800080',
  fuchsia: '#ff00ff',
  green: '#008000',
  lime: '#00ff00',
  olive: '#808000',
  yellow: '#ffff00',
  navy: '#000080',
  blue: '#0000ff',
  teal: '#008080',
  aqua: '#00ffff',
  orange: '#ffa500',
};

/**
 * Parses `#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa`, `rgb()`/`rgba()`, `hsl()`/`hsla()` and the CSS 2.1 colour names;
 * undefined for anything else. Alpha is ignored: buttons are drawn on the page's background; a brand colour is solid.
 */
function parseColor(color: string): Rgb | undefined {
  const value = color.trim().toLowerCase();
  if (Object.hasOwn(namedColors, value)) return parseColor(namedColors[value]!);
  const hex = /^#([0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/.exec(value)?.[1];
  if (hex) {
    const full = hex.length <= 4 ? [...hex].map((digit) => digit + digit).join('') : hex;
    return { red: parseInt(full.slice(0, 2), 16), green: parseInt(full.slice(2, 4), 16), blue: parseInt(full.slice(4, 6), 16) };
  }
  const functional = /^(rgba?|hsla?)\(([^)]*)\)$/.exec(value);
  if (!functional) return undefined;
  const parts = functional[2]!.split(/[\s,/]+/).filter(Boolean);
  if (parts.length < 3) return undefined;
  if (functional[1]!.startsWith('rgb')) {
    const channels = parts.slice(0, 3).map((part) => (part.endsWith('%') ? (parseFloat(part) * 255) / 100 : parseFloat(part)));
    if (channels.some((channel) => !Number.isFinite(channel))) return undefined;
    const [red, green, blue] = channels.map((channel) => Math.min(255, Math.max(0, channel))) as [number, number, number];
    return { red, green, blue };
  }
  const hue = parseFloat(parts[0]!);
  const saturation = parseFloat(parts[1]!) / 100;
  const lightness = parseFloat(parts[2]!) / 100;
  if (![hue, saturation, lightness].every(Number.isFinite)) return undefined;
  return hslToRgb(hue, Math.min(1, Math.max(0, saturation)), Math.min(1, Math.max(0, lightness)));
}

function hslToRgb(hue: number, saturation: number, lightness: number): Rgb {
  const chroma = (1 - Math.abs(2 * lightness - 1)) * saturation;
  const channel = (offset: number): number => {
    const k = (offset + hue / 30) % 12;
    return 255 * (lightness - chroma / 2 * Math.max(-1, Math.min(k - 3, 9 - k, 1)));
  };
  return { red: channel(0), green: channel(8), blue: channel(4) };
}

/** WCAG relative luminance, 0 (black) to 1 (white). */
function relativeLuminance({ red, green, blue }: Rgb): number {
  const linear = (channel: number): number => {
    const value = channel / 255;
    return value <= 0.04045 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue);
}

/** The WCAG contrast ratio of two colours, 1 to 21. */
function contrastRatio(first: Rgb, second: Rgb): number {
  const [lighter, darker] = [relativeLuminance(first), relativeLuminance(second)].sort((a, b) => b - a) as [number, number];
  return (lighter + 0.05) / (darker + 0.05);
}

/** The contrast a button's text needs on its background (WCAG 1.4.3, normal text). */
const minimumContrast = 4.5;

/**
 * The text colour for a button of `background`: `preferred` when it is readable there, otherwise black or white,
 * whichever contrasts more (one of them always reaches 4.5:1). When either colour cannot be parsed, `preferred` is
 * kept (undefined: the page's default applies).
 * @example
 * readableTextColor('#fc6d26') // '#000000': white on GitLab orange is only 2.9:1
 */
export function readableTextColor(background: string, preferred?: string): string | undefined {
  const parsed = parseColor(background);
  if (!parsed) return preferred;
  if (preferred !== undefined) {
    // A text colour that cannot be measured is the configuration's call.
    const wanted = parseColor(preferred);
    if (!wanted || contrastRatio(parsed, wanted) >= minimumContrast) return preferred;
  }
  const white = { red: 255, green: 255, blue: 255 };
  const black = { red: 0, green: 0, blue: 0 };
  return contrastRatio(parsed, white) >= contrastRatio(parsed, black) ? '#ffffff' : '#000000';
}
