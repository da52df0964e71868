// scripts/package-scorm.mjs on the built dist/: every chapter's package and the whole stepper's,
// their imsmanifest.xml held to the SCORM 1.2 content-packaging rules a test can check without
// the schemas (identifiers, references, the launch file, every file listed and present, the
// schema version, the mastery score), the launch page set to its chapter, and bad options refused
// by name. The package under a SCORM runtime: tests/browser/scorm.test.mjs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHAPTERS } from '../../web/model/chapters.js';
import { LAUNCH, packagesOf } from '../../scripts/package-scorm.mjs';
import { packageChoice, packageOf } from '../../web/lms/scorm-package.js';

const NCNAME = /^[A-Za-z_][A-Za-z0-9._-]*$/; // xs:ID: what an identifier must be
const attr = (tag, name) => new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];
const tags = (xml, name) => xml.match(new RegExp(`<${name}\\b[^>]*>`, 'g')) ?? [];
const utf8 = (bytes) => new TextDecoder().decode(bytes);
const textOf = (xml, name) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];

const packages = packagesOf({ mastery: 80 });

test('a package for every chapter and one for the whole stepper', () => {
  assert.deepEqual(
    packages.map((p) => p.name),
    [...CHAPTERS.map((c) => `attention-stepper-${c.id}.zip`), 'attention-stepper-all.zip'],
  );
});

for (const p of packages) {
  test(`${p.name}: imsmanifest.xml follows SCORM 1.2 and lists exactly the package's files`, () => {
    const xml = utf8(p.files['imsmanifest.xml']);
    assert.match(xml, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<manifest /);
    assert.equal(textOf(xml, 'schema'), 'ADL SCORM');
    assert.equal(textOf(xml, 'schemaversion'), '1.2');
    const ids = [...xml.matchAll(/\sidentifier="([^"]*)"/g)].map((m) => m[1]);
    assert.equal(new Set(ids).size, ids.length, 'identifiers are unique');
    for (const id of ids) assert.match(id, NCNAME);
    const [organizations] = tags(xml, 'organizations');
    const organizationIds = tags(xml, 'organization').map((t) => attr(t, 'identifier'));
    assert.ok(organizationIds.includes(attr(organizations, 'default')), 'the default organization exists');
    const [item] = tags(xml, 'item');
    const [resource] = tags(xml, 'resource');
    assert.equal(attr(item, 'identifierref'), attr(resource, 'identifier'), 'the item launches the resource');
    assert.equal(attr(resource, 'adlcp:scormtype'), 'sco');
    assert.equal(attr(resource, 'type'), 'webcontent');
    assert.equal(attr(resource, 'href'), LAUNCH);
    assert.equal(textOf(xml, 'adlcp:masteryscore'), '80');
    assert.match(xml, /xmlns:adlcp="http:\/\/www\.adlnet\.org\/xsd\/adlcp_rootv1p2"/);
    const listed = tags(xml, 'file').map((t) => attr(t, 'href'));
    const shipped = Object.keys(p.files).filter((f) => f !== 'imsmanifest.xml');
    assert.deepEqual([...listed].sort(), [...shipped].sort(), 'every file listed, and only those');
    for (const f of listed) assert.ok(!f.startsWith('/') && !f.includes('..'), `${f}: inside the package`);
    for (const needed of [LAUNCH, 'attention-stepper-scorm.classic.js', 'attention-wasm.classic.js'])
      assert.ok(listed.includes(needed), needed);
    for (const page of ['training.html', 'builder.html', 'embedding.html'])
      assert.ok(!listed.includes(page), `no other page: ${page}`);
    assert.ok(!listed.some((f) => f.startsWith('scorm/')), 'no package in a package');
    const launch = utf8(p.files[LAUNCH]);
    const chapters = p.chapter === 'all' ? '' : p.chapter;
    assert.ok(
      launch.includes(
        `<main id="scorm" data-chapters="${chapters}" data-preset="" data-controls="full" data-mastery="80"></main>`,
      ),
      launch,
    );
  });
}

test('--controls locked: the launch page fixes the configuration', () => {
  const [locked] = packagesOf({ chapters: ['masks'], controls: 'locked' });
  assert.match(
    utf8(locked.files[LAUNCH]),
    /data-chapters="masks" data-preset="" data-controls="locked" data-mastery="70"/,
  );
});

test("a lecturer's choice (builder.html): its chapters in their order, its example, its controls", () => {
  const built = packagesOf({ chapters: ['all'] })[0].files;
  delete built['imsmanifest.xml'];
  const choice = { chapters: ['masks', 'attention'], preset: 'lesson-causal', controls: 'compact', mastery: 55 };
  const p = packageOf(built, choice);
  assert.equal(p.name, 'attention-stepper-masks-attention.zip');
  assert.equal(p.title, 'Attention stepper: Masks, Self-attention');
  assert.ok(
    utf8(p.files[LAUNCH]).includes(
      '<main id="scorm" data-chapters="masks,attention" data-preset="lesson-causal" data-controls="compact" ' +
        'data-mastery="55"></main>',
    ),
  );
  const xml = utf8(p.files['imsmanifest.xml']);
  assert.equal(textOf(xml, 'adlcp:masteryscore'), '55');
  assert.match(xml, /<manifest identifier="attention-stepper-masks-attention" /);
  for (const [f, bytes] of Object.entries(built))
    if (f !== LAUNCH) assert.equal(p.files[f], bytes, `${f}: the built file as it is`);
  // Every chapter in the tabs' own order is every chapter: the package named 'all'.
  const every = CHAPTERS.map((c) => c.id);
  assert.deepEqual(packageChoice({ chapters: every }).chapters, []);
  assert.deepEqual(packageChoice({ chapters: [...every].reverse() }).chapters, [...every].reverse());
});

test('bad options are refused by name', () => {
  assert.throws(() => packagesOf({ controls: 'none' }), /^Error: controls: none is not one of full, locked, compact$/);
  assert.throws(
    () => packagesOf({ chapters: ['attention', 'nope'] }),
    /^Error: chapters: nope is not a chapter; the chapters are attention, /,
  );
  for (const mastery of [-1, 101, NaN])
    assert.throws(() => packagesOf({ mastery }), /^Error: mastery: .* is not a score from 0 to 100$/);
  assert.throws(() => packageOf({}, {}), /^Error: the built page holds no scorm\.html: run npm run build first$/);
});
