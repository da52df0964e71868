// `npm run package`: SCORM 1.2 packages of the built stepper, one for each chapter and one for the
// whole stepper, as dist/scorm/attention-stepper-<chapter>.zip (…-all.zip): imsmanifest.xml (one
// SCO, its launch file scorm.html, every file listed, adlcp:masteryscore), scorm.html set to the
// chapter and the mastery score, and the built page beside it (what its element loads: the
// bundles, the engine — the classic single file too, for an LMS that serves .mjs with the wrong
// type — the styles, KaTeX and its fonts).
// Usage: node scripts/package-scorm.mjs [--mastery 70] [--controls full|locked] [--out dist/scorm] [chapter …]
// The mastery score (0–100, default 70) is what an LMS compares cmi.core.score.raw with, unless
// it gives its own (cmi.student_data.mastery_score); --controls locked fixes the configuration
// (the learner steps through the chapter's example, and cannot change it).
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { zipSync } from 'fflate';
import { CHAPTERS } from '../web/model/chapters.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(root, 'dist');
export const LAUNCH = 'scorm.html';
// What the launch page never loads: other pages' files, and packages already made.
const LEFT_OUT = [
  /^scorm\//,
  /^examples\//,
  /^training\.html$/,
  /^attention-stepper-training/,
  /^embedding\.html$/,
  /^builder\.html$/,
  /^attention-stepper-builder/,
];

const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
const xml = (text) => String(text).replace(/[&<>"]/g, (c) => ESCAPES[c]);

function filesUnder(dir, prefix = '') {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const rel = prefix + name;
      return statSync(path.join(dir, name)).isDirectory() ? filesUnder(path.join(dir, name), `${rel}/`) : [rel];
    });
}

// Where each namespace's schema is, as SCORM 1.2 packages name them (the .xsd files themselves are
// not shipped: an LMS reads the manifest without them).
const SCHEMAS = [
  'http://www.imsproject.org/xsd/imscp_rootv1p1p2 imscp_rootv1p1p2.xsd',
  'http://www.imsglobal.org/xsd/imsmd_rootv1p2p1 imsmd_rootv1p2p1.xsd',
  'http://www.adlnet.org/xsd/adlcp_rootv1p2 adlcp_rootv1p2.xsd',
].join(' ');

/** imsmanifest.xml of one package: a single SCO launched at scorm.html. */
export function manifestOf({ id, title, mastery, files }) {
  const list = files.map((f) => `      <file href="${xml(f)}"/>`).join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="${xml(id)}" version="1.0"
  xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2"
  xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
  xsi:schemaLocation="${SCHEMAS}">
  <metadata>
    <schema>ADL SCORM</schema>
    <schemaversion>1.2</schemaversion>
  </metadata>
  <organizations default="${xml(id)}-organization">
    <organization identifier="${xml(id)}-organization">
      <title>${xml(title)}</title>
      <item identifier="${xml(id)}-item" identifierref="${xml(id)}-sco" isvisible="true">
        <title>${xml(title)}</title>
        <adlcp:masteryscore>${mastery}</adlcp:masteryscore>
      </item>
    </organization>
  </organizations>
  <resources>
    <resource identifier="${xml(id)}-sco" type="webcontent" adlcp:scormtype="sco" href="${LAUNCH}">
${list}
    </resource>
  </resources>
</manifest>
`;
}

const CONTROLS = ['full', 'locked'];

/** The launch page with its chapter ("" for every chapter), mastery score and controls set. */
export function launchPage(html, chapter, mastery, controls = 'full') {
  return html
    .replace('data-chapter=""', `data-chapter="${xml(chapter)}"`)
    .replace('data-mastery="70"', `data-mastery="${mastery}"`)
    .replace('data-controls="full"', `data-controls="${controls}"`);
}

/** The packages' files: { name, chapter, title, files: { path: bytes } } for each chapter asked
 * for ('all': every chapter) from a built dist. */
export function packagesOf({
  dist = DIST,
  mastery = 70,
  controls = 'full',
  chapters = [...CHAPTERS.map((c) => c.id), 'all'],
} = {}) {
  if (!Number.isFinite(mastery) || mastery < 0 || mastery > 100)
    throw new Error(`--mastery: ${mastery} is not a score from 0 to 100`);
  if (!CONTROLS.includes(controls)) throw new Error(`--controls: ${controls} is not one of ${CONTROLS.join(', ')}`);
  const known = new Map(CHAPTERS.map((c) => [c.id, c.title]));
  const unknown = chapters.filter((c) => c !== 'all' && !known.has(c));
  if (unknown.length)
    throw new Error(
      `chapter: ${unknown.join(', ')} is not a chapter; the chapters are ${[...known.keys()].join(', ')}`,
    );
  const shipped = filesUnder(dist).filter((f) => !LEFT_OUT.some((re) => re.test(f)));
  if (!shipped.includes(LAUNCH)) throw new Error(`${dist} holds no ${LAUNCH}: run npm run build first`);
  const launch = readFileSync(path.join(dist, LAUNCH), 'utf8');
  return chapters.map((chapter) => {
    const all = chapter === 'all';
    const title = `Attention stepper: ${all ? 'every chapter' : known.get(chapter)}`;
    const id = `attention-stepper-${chapter}`;
    const files = Object.fromEntries(shipped.map((f) => [f, readFileSync(path.join(dist, f))]));
    files[LAUNCH] = Buffer.from(launchPage(launch, all ? '' : chapter, mastery, controls));
    files['imsmanifest.xml'] = Buffer.from(manifestOf({ id, title, mastery, files: shipped }));
    return { name: `${id}.zip`, chapter, title, files };
  });
}

/** Writes each package as a zip into out; → [{ path, bytes }]. */
export function writePackages({ out = path.join(DIST, 'scorm'), ...options } = {}) {
  mkdirSync(out, { recursive: true });
  return packagesOf(options).map((p) => {
    const zip = zipSync(Object.fromEntries(Object.entries(p.files).map(([f, bytes]) => [f, new Uint8Array(bytes)])), {
      level: 9,
    });
    const file = path.join(out, p.name);
    writeFileSync(file, zip);
    return { path: file, bytes: zip.length };
  });
}

function argsOf(argv) {
  const options = { chapters: [] };
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === '--mastery') options.mastery = Number(argv[(i += 1)]);
    else if (argv[i] === '--controls') options.controls = argv[(i += 1)];
    else if (argv[i] === '--out') options.out = path.resolve(argv[(i += 1)]);
    else options.chapters.push(argv[i]);
  }
  if (!options.chapters.length) delete options.chapters;
  return options;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    for (const { path: file, bytes } of writePackages(argsOf(process.argv.slice(2))))
      console.log(`package: ${path.relative(root, file)} ${(bytes / 1024).toFixed(0)} KB`);
  } catch (error) {
    console.error(`package: ${error.message}`);
    process.exit(1);
  }
}
