// Where the built files are (dist/…): beside the bundle that holds this module. The ES bundle
// finds its files from import.meta.url; a classic bundle from its own <script> src, captured
// while it runs (document.currentScript is null later). Importing nothing, so any layer that
// links to a built file (the element's assets, the export menu's link to embed.html, the later
// script's loader) can ask it.

/** The running bundle's URL. */
export const SCRIPT_URL = (typeof document !== 'undefined' && document.currentScript?.src) || import.meta.url;

/** The URL of a built file (dist/…) beside the bundle. */
export function assetUrl(file) {
  return new URL(file, SCRIPT_URL).href;
}
