// The HTML report in a real browser: Debian's chromium driven by Playwright.
// Usage: node report_test.mjs SOAPBENCH NODE_MODULES_DIR WORK_DIR RESULTS.json...
// For a page of the first file alone and a page of all of them: it loads from
// file:// with no console error and no request but itself, every chart and
// table is there with the numbers of the results files, a hover shows a
// point's values, and a screenshot is not blank. Then a partial run shows
// its banner. Exit 0 when all holds; 1 naming what failed or what is missing.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';

const CHROMIUM = '/usr/bin/chromium';
const [soapbench, nodeModules, work, ...files] = process.argv.slice(2);
const failures = [];
function check(ok, what) { if (!ok) failures.push(what); return ok; }
function die(msg) { console.error(`browser test: ${msg}`); process.exit(1); }

if (!files.length) die('usage: node report_test.mjs SOAPBENCH NODE_MODULES_DIR WORK_DIR RESULTS.json...');
if (!fs.existsSync(CHROMIUM)) die(`${CHROMIUM} is missing: apt-get install chromium (scripts/packages.txt lists it)`);
let chromium;
try {
  ({ chromium } = createRequire(path.resolve(nodeModules, 'x.js'))('playwright-core'));
} catch (e) {
  die(`playwright-core is missing from ${nodeModules}: run tests/browser/install ${path.dirname(nodeModules)} (${e.message})`);
}

// The page's display rules (chart.js): three significant digits; rates whole from 100 up.
const sig3 = v => (v == null || !isFinite(v) ? '\u2013' : String(Number(Number(v).toPrecision(3))));
const fmtRate = v => (v == null || !isFinite(v) ? '\u2013' : Math.abs(v) >= 100 ? String(Math.round(v)) : sig3(v));
const labelOf = (j, i) => j.context.label || j.context.stack_label || `run ${i + 1}`;

fs.mkdirSync(work, { recursive: true });
function report(out, inputs) {
  execFileSync(soapbench, ['report', ...inputs, '--out', out]);
  return out;
}

const browser = await chromium.launch({
  executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});

// Loads a page and returns it with what it logged and requested.
async function open(file) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const seen = { errors: [], requests: [] };
  const url = 'file://' + path.resolve(file);
  page.on('console', m => { if (m.type() === 'error') seen.errors.push(m.text()); });
  page.on('pageerror', e => seen.errors.push(e.message));
  page.on('request', r => { if (r.url() !== url) seen.requests.push(r.url()); });
  const t0 = Date.now();
  await page.goto(url);
  await page.waitForSelector('body[data-ready=true]', { timeout: 20000 });
  seen.loadMs = Date.now() - t0;
  seen.scriptMs = Number(await page.evaluate(() => document.body.dataset.renderMs));
  seen.readyMs = Number(await page.evaluate(() => document.body.dataset.readyMs));
  return { page, seen };
}

// Distinct colours of a screenshot, counted on a canvas of a blank page.
async function colours(png) {
  const blank = await browser.newPage();
  const n = await blank.evaluate(async b64 => {
    const bytes = Uint8Array.from(atob(b64), c => c.charCodeAt(0));
    const img = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
    const c = new OffscreenCanvas(img.width, img.height), ctx = c.getContext('2d');
    ctx.drawImage(img, 0, 0);
    const d = ctx.getImageData(0, 0, img.width, img.height).data, set = new Set();
    for (let i = 0; i < d.length; i += 4) set.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
    return set.size;
  }, png.toString('base64'));
  await blank.close();
  return n;
}

async function checkPage(name, file, results) {
  const { page, seen } = await open(file);
  const size = fs.statSync(file).size;
  console.log(`${name}: ${results.length} run(s), ${size} bytes, drawn ${seen.readyMs.toFixed(0)} ms after the ` +
              `navigation began (its script ${seen.scriptMs.toFixed(0)} ms; goto to drawn in node ${seen.loadMs} ms)`);
  check(seen.errors.length === 0, `${name}: console errors: ${seen.errors.join(' | ')}`);
  check(seen.requests.length === 0, `${name}: requests beyond the page: ${seen.requests.join(' ')}`);
  // The bounds, with room: under 1 MB (twelve runs of 2 operations x 4 steps
  // hold more steps than one 10-step run), drawn within 2 s of the navigation.
  check(size < 1024 * 1024, `${name}: the page is ${size} bytes, over 1 MB`);
  check(seen.readyMs < 2000, `${name}: drawn ${seen.readyMs.toFixed(0)} ms after the navigation, over 2 s`);

  const ops = [...new Set(results.flatMap(j => j.operations.map(o => o.operation)))];
  for (const op of ops) {
    for (const kind of ['throughput', 'latency', 'spectrum', 'time-throughput', 'time-p99']) {
      const fig = page.locator(`figure[id="${op}-${kind}"]`);
      if (!check(await fig.count() === 1, `${name}: no chart ${op}-${kind}`)) continue;
      check(await fig.locator('svg circle').count() > 0, `${name}: chart ${op}-${kind} has no point`);
      check(await fig.locator('details table tbody tr').count() > 0, `${name}: chart ${op}-${kind} has no table`);
    }
    // One point per step of every run in the throughput chart, and its table holds each throughput.
    const steps = results.flatMap(j => (j.operations.find(o => o.operation === op) || { steps: [] }).steps);
    const thr = page.locator(`figure[id="${op}-throughput"]`);
    check(await thr.locator('svg circle').count() === steps.length,
          `${name}: ${op}-throughput: ${await thr.locator('svg circle').count()} points for ${steps.length} steps`);
    const thrTable = await thr.locator('table').textContent();
    for (const s of steps) check(thrTable.includes(fmtRate(s.throughput)), `${name}: ${op}-throughput table lacks ${fmtRate(s.throughput)}`);
  }

  // The CXF table of every run and operation: a row per step with the file's numbers.
  for (const [i, j] of results.entries()) {
    for (const o of j.operations) {
      const table = page.locator(`table.cxf[data-run="${labelOf(j, i)}"][data-operation="${o.operation}"]`);
      if (!check(await table.count() === 1, `${name}: no table of ${labelOf(j, i)} ${o.operation}`)) continue;
      const head = await table.locator('th').allTextContents();
      const rows = await table.locator('tbody tr').evaluateAll(trs => trs.map(tr => [...tr.cells].map(td => td.textContent)));
      check(rows.length === o.steps.length, `${name}: ${labelOf(j, i)} ${o.operation}: ${rows.length} rows for ${o.steps.length} steps`);
      o.steps.forEach((s, k) => {
        const cell = h => (rows[k] || [])[head.indexOf(h)];
        const want = { clients: String(s.clients), 'req/s': fmtRate(s.throughput),
                       errors: String(Object.values(s.failures).reduce((a, b) => a + b, 0)) };
        // A step with no successful call has an empty histogram: the file writes its
        // summary as zeros, the page as a dash.
        const answered = s.requests > 0;
        for (const p of ['mean', 'p50', 'p90', 'p99', 'p99.9', 'max'])
          if (s.latency_summary_ms && s.latency_summary_ms[p] != null)
            want[p + ' ms'] = answered ? sig3(s.latency_summary_ms[p]) : '\u2013';
        for (const [h, v] of Object.entries(want))
          check(cell(h) === v, `${name}: ${labelOf(j, i)} ${o.operation} ${s.clients} clients: ${h} is ${cell(h)}, the file says ${v}`);
      });
    }
  }

  // Hovering the fastest run's peak point of the first throughput chart shows its
  // values. The peak, not the first point: at 1 client the runs' points can lie on
  // top of each other, and the mouse then reaches another run's point.
  const first = results[0], op0 = first.operations[0];
  const order = [...results.entries()].sort((a, b) => peak(b[1], op0.operation) - peak(a[1], op0.operation));
  const [topIndex, top] = order[0];
  const topSteps = top.operations.find(o => o.operation === op0.operation).steps;
  const peakAt = topSteps.reduce((best, s, i) => (s.throughput > topSteps[best].throughput ? i : best), 0);
  const topStep = topSteps[peakAt];
  await page.locator(`figure[id="${op0.operation}-throughput"] svg circle[data-series="${labelOf(top, topIndex)}"]`)
            .nth(peakAt).hover();
  const tip = page.locator('#tip');
  check(await tip.isVisible(), `${name}: hovering a point shows no tooltip`);
  const tipText = (await tip.textContent()) || '';
  check(tipText.includes(labelOf(top, topIndex)) && tipText.includes(`requests/s: ${fmtRate(topStep.throughput)}`),
        `${name}: the tooltip says '${tipText}', expected ${labelOf(top, topIndex)} at ${fmtRate(topStep.throughput)} requests/s`);

  const shot = await page.screenshot({ fullPage: true });
  fs.writeFileSync(path.join(work, `${name}.png`), shot);
  const n = await colours(shot);
  console.log(`${name}: screenshot ${path.join(work, name + '.png')}, ${n} colours`);
  check(n >= 50, `${name}: the screenshot has ${n} colours: blank or nearly`);
  return page;
}

function peak(j, op) {
  const o = j.operations.find(x => x.operation === op);
  return o && o.steps.length ? Math.max(...o.steps.map(s => s.throughput)) : -1;
}

try {
  const results = files.map(f => JSON.parse(fs.readFileSync(f, 'utf8')));
  await checkPage('one-run', report(path.join(work, 'one-run.html'), [files[0]]), [results[0]]);
  if (files.length > 1) {
    const page = await checkPage('all-runs', report(path.join(work, 'all-runs.html'), files), results);
    // Several runs: the percentile of the latency chart can be chosen.
    const op = results[0].operations[0].operation;
    await page.locator(`figure[id="${op}-latency"] select`).selectOption('p50');
    check((await page.locator(`figure[id="${op}-latency"] figcaption`).textContent()).includes('(p50)'),
          'all-runs: choosing p50 does not redraw the latency chart');
  }
  // A partial run (Ctrl-C) says so in a banner.
  const cut = JSON.parse(fs.readFileSync(files[0], 'utf8'));
  cut.partial = true;
  const cutFile = path.join(work, 'partial.json');
  fs.writeFileSync(cutFile, JSON.stringify(cut));
  const { page, seen } = await open(report(path.join(work, 'partial.html'), [cutFile]));
  check(seen.errors.length === 0, `partial: console errors: ${seen.errors.join(' | ')}`);
  const banner = page.locator('#partial-banner');
  check(await banner.isVisible() && (await banner.textContent()).startsWith('Partial'), 'partial: no visible "Partial" banner');
} finally {
  await browser.close();
}

for (const f of failures) console.error(`FAILED: ${f}`);
console.log(failures.length ? `${failures.length} check(s) failed` : 'all checks passed');
process.exit(failures.length ? 1 : 0);
