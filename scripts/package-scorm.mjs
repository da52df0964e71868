// `npm run package`: SCORM 1.2 packages of the built stepper, one for each chapter and one for the
// whole stepper, as dist/scorm/attention-stepper-<chapter>.zip (…-all.zip). What a package holds
// is web/lms/scorm-package.js's, as for builder.html's download: the files dist/scorm-files.json
// lists, the launch page set to the chapter, and imsmanifest.xml.
// Usage: node scripts/package-scorm.mjs [--mastery 70] [--controls full|locked|compact] [--out dist/scorm] [chapter …]
// The mastery score (0–100, default 70) is what an LMS compares cmi.core.score.raw with, unless
// it gives its own (cmi.student_data.mastery_score); --controls locked fixes the configuration
// (the learner steps through the chapter's example, and cannot change it).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { zipSync } from 'fflate';
import { CHAPTERS } from '../web/model/chapters.js';
import { FILE_LIST, packageChoice, packageOf } from '../web/lms/scorm-package.js';

export { LAUNCH } from '../web/lms/scorm-package.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(root, 'dist');

// The built page's files that a package ships, as the build listed them.
function shippedFiles(dist) {
  const list = path.join(dist, FILE_LIST);
  if (!existsSync(list)) throw new Error(`${list} is missing: run npm run build first`);
  const files = JSON.parse(readFileSync(list, 'utf8'));
  return Object.fromEntries(files.map((f) => [f, new Uint8Array(readFileSync(path.join(dist, f)))]));
}

/** The packages ({ name, chapter, title, files: { path: bytes } }) of the chapters asked for
 * ('all': every chapter) from a built dist. */
export function packagesOf({
  dist = DIST,
  mastery = 70,
  controls = 'full',
  chapters = [...CHAPTERS.map((c) => c.id), 'all'],
} = {}) {
  packageChoice({ chapters: chapters.filter((c) => c !== 'all'), controls, mastery }); // a bad option, named
  const files = shippedFiles(dist);
  return chapters.map((chapter) => ({
    chapter,
    ...packageOf(files, { chapters: chapter === 'all' ? [] : [chapter], controls, mastery }),
  }));
}

/** Writes each package as a zip into out; → [{ path, bytes }]. */
export function writePackages({ out = path.join(DIST, 'scorm'), ...options } = {}) {
  mkdirSync(out, { recursive: true });
  return packagesOf(options).map((p) => {
    const zip = zipSync(p.files, { level: 9 });
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
