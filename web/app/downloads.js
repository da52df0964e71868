// Saving a file from the page: a Blob, an object URL and a click on an <a download> placed in
// the stepper's own root (the document, or the element's shadow root). Works over http, from
// file:// and under the strict CSP: a download is not a fetch or an image, so neither
// connect-src nor img-src applies, and a blob: URL made by the page is same-origin to it.

// Long enough for the browser to start reading the blob; then its memory is freed.
const REVOKE_AFTER_MS = 60_000;

/** file: { filename, mime, data: string | Uint8Array | Blob }; within: a node of the stepper. */
export function saveFile(file, within) {
  const blob = file.data instanceof Blob ? file.data : new Blob([file.data], { type: file.mime });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = file.filename;
  a.hidden = true;
  within.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), REVOKE_AFTER_MS);
  return file.filename;
}
