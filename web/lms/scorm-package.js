// A SCORM 1.2 package of the built stepper, as files: imsmanifest.xml (one SCO launched at
// scorm.html, every file listed, adlcp:masteryscore), the launch page set to a lecturer's choice,
// and the built page beside it (the bundles, the engine — the classic single file too, for an
// LMS that serves .mjs with the wrong type — the styles, KaTeX and its fonts). Made the same way
// by `npm run package` (scripts/package-scorm.mjs, from dist/ on disk) and by builder.html (in
// the browser, from the files the build lists in scorm-files.json).

import { CHAPTERS, chapterById, isTabOrder } from '../model/chapters.js';
import { DEFAULT_MASTERY } from './scorm-cmi.js';

export const LAUNCH = 'scorm.html';
export const FILE_LIST = 'scorm-files.json';
// A package's learner steps through it: 'none' (no Prev or Next) is not offered.
export const PACKAGE_CONTROLS = ['full', 'locked', 'compact'];

// What the launch page never loads: other pages' files, packages already made, the list itself.
const LEFT_OUT = [
  /^scorm\//,
  /^examples\//,
  /^training\.html$/,
  /^attention-stepper-training/,
  /^embedding\.html$/,
  /^builder\.html$/,
  /^attention-stepper-builder/,
  /^scorm-files\.json$/,
];

/** Whether a file of dist/ (its path there, with '/') goes into a package. */
export const shipsInPackage = (file) => !LEFT_OUT.some((re) => re.test(file));

const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
const xml = (text) => String(text).replace(/[&<>"]/g, (c) => ESCAPES[c]);

/**
 * A lecturer's choice, checked: { chapters: [id] (the tabs, in order; none: every chapter),
 * preset (an example id, or null for the first chapter's first), controls, mastery (0–100) }.
 * A bad value throws, naming the option.
 */
export function packageChoice({ chapters = [], preset = null, controls = 'full', mastery = DEFAULT_MASTERY } = {}) {
  if (!Number.isFinite(mastery) || mastery < 0 || mastery > 100)
    throw new Error(`mastery: ${mastery} is not a score from 0 to 100`);
  if (!PACKAGE_CONTROLS.includes(controls))
    throw new Error(`controls: ${controls} is not one of ${PACKAGE_CONTROLS.join(', ')}`);
  const unknown = chapters.filter((c) => !chapterById(c));
  if (unknown.length)
    throw new Error(
      `chapters: ${unknown.join(', ')} ${unknown.length > 1 ? 'are not chapters' : 'is not a chapter'}; ` +
        `the chapters are ${CHAPTERS.map((c) => c.id).join(', ')}`,
    );
  return { chapters: isTabOrder(chapters) ? [] : chapters, preset, controls, mastery };
}

// The package's name and title: its chapters ('all': every chapter).
function nameOf({ chapters }) {
  const ids = chapters.length ? chapters.join('-') : 'all';
  const titles = chapters.length ? chapters.map((c) => chapterById(c).title).join(', ') : 'every chapter';
  return { id: `attention-stepper-${ids}`, title: `Attention stepper: ${titles}` };
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

/** The launch page (dist/scorm.html's text) with the choice in its host's data attributes. */
export function launchPage(html, { chapters, preset, controls, mastery }) {
  const host =
    `<main id="scorm" data-chapters="${xml(chapters.join(','))}" data-preset="${xml(preset ?? '')}" ` +
    `data-controls="${xml(controls)}" data-mastery="${mastery}">`;
  if (!/<main id="scorm"[^>]*>/.test(html)) throw new Error(`${LAUNCH} holds no <main id="scorm">`);
  return html.replace(/<main id="scorm"[^>]*>/, host);
}

/**
 * One package: files ({ path: Uint8Array }, the built page's files that ship, scorm.html among
 * them) and a choice (packageChoice's options) → { name, title, files } with the launch page set
 * and imsmanifest.xml added.
 */
export function packageOf(files, options) {
  const choice = packageChoice(options);
  if (!(LAUNCH in files)) throw new Error(`the built page holds no ${LAUNCH}: run npm run build first`);
  const { id, title } = nameOf(choice);
  const listed = Object.keys(files);
  const text = new TextEncoder();
  const launch = launchPage(new TextDecoder().decode(files[LAUNCH]), choice);
  return {
    name: `${id}.zip`,
    title,
    files: {
      ...files,
      [LAUNCH]: text.encode(launch),
      'imsmanifest.xml': text.encode(manifestOf({ id, title, mastery: choice.mastery, files: listed })),
    },
  };
}
