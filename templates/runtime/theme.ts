/** The look of the built-in pages (and of the email provider's message); a leaf, so pages and providers need not import the config. */
export interface Theme {
  /**
   * `light` or `dark` fixes the pages' colour scheme; `auto` follows the browser's `prefers-color-scheme`.
   * @default 'auto'
   */
  colorScheme?: 'auto' | 'dark' | 'light';
  /** Shown above each page's heading: an https URL, a path on this site, or an image data URI. */
  logo?: string;
  /**
   * The colour of the pages' buttons (CSS hex, `rgb()`, `hsl()` or a name).
   * @default '#3451b2'
   */
  brandColor?: string;
  /**
   * The text colour on `brandColor`. Without it, or when it is below 4.5:1 on `brandColor`, black or white is
   * used, whichever reads better.
   * @default '#ffffff'
   */
  buttonText?: string;
}
