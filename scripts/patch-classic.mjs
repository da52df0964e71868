// Emscripten 3.1.6's single-file build still tries fetch() on its own data: URI first and only
// then decodes it in JS. Under `default-src 'self'` that fetch is a CSP violation (connect-src),
// logged and reported as a securitypolicyviolation event, although loading then succeeds. Later
// Emscripten releases skip the fetch for data: URIs; this applies the same test. The code is
// matched whatever its spacing and quotes (Release is minified, Debug is not), and a patch that
// does not find it exactly once throws, so an Emscripten that changed it stops the build.

// if (!wasmBinary && (ENVIRONMENT_IS_WEB || ENVIRONMENT_IS_WORKER)) { if (typeof fetch == "function"
const FETCH_CHECK = new RegExp(
  String.raw`if\s*\(\s*!wasmBinary\s*&&\s*\(\s*ENVIRONMENT_IS_WEB\s*\|\|\s*ENVIRONMENT_IS_WORKER\s*\)\s*\)\s*\{` +
    String.raw`\s*if\s*\(\s*typeof\s+fetch\s*==\s*(["'])function\1`,
  'g',
);

/** The factory's source with its data: URI fetch skipped; throws unless found exactly once. */
export function skipDataUriFetch(source, name = 'the classic factory') {
  const found = source.match(FETCH_CHECK) ?? [];
  if (found.length !== 1)
    throw new Error(`${name}: expected its data: URI fetch once, found it ${found.length} times (Emscripten changed?)`);
  return source.replace(FETCH_CHECK, (code) => `${code}&&!isDataURI(wasmBinaryFile)`);
}
