// soapbench report: builds the page from the JSON in #soapbench-data (written
// by html_report.cpp) with the charts of chart.js. Fields that newer results
// carry (send lag, thresholds) are drawn when present and skipped when not.
'use strict';

const PCTS = ['mean', 'p50', 'p90', 'p99', 'p99.9', 'max'];
const KINDS = ['soap_fault', 'http_status', 'mismatch', 'timeout', 'connect', 'read', 'tls', 'auth'];

function opOf(run, name) { return run.operations.find(o => o.operation === name) || null; }
function stepsOf(run, name) { const o = opOf(run, name); return o ? o.steps : []; }
function color(i) { return PALETTE[i % PALETTE.length]; }
function union(values) { return [...new Set(values)].sort((a, b) => a - b); }
function lat(step, key) { return step.latency_ms ? step.latency_ms[key] : null; }
function stepAt(run, name, clients) { return stepsOf(run, name).find(s => s.clients === clients) || null; }

// The spectrum's x: the nines of a percentile (90% -> 1, 99% -> 2); the max sits half a nine past the last.
function nines(p) { return -Math.log10(1 - p / 100); }
function spectrumPoints(spectrum) {
  const pts = [];
  for (const [p, ms] of spectrum) {
    const x = p < 100 ? nines(p) : (pts.length ? pts[pts.length - 1].x + 0.5 : 0);
    pts.push({x, y: ms, xText: p < 100 ? p + '%' : 'max', p});
  }
  return pts;
}
function ninesTicks(max) {
  const t = [{v: nines(50), label: '50%'}];
  for (let k = 0; k <= Math.ceil(max); k++) t.push({v: k, label: k === 0 ? '0%' : String(Number((100 - Math.pow(10, 2 - k)).toPrecision(12))) + '%'});
  return t;
}

function header(data, runs) {
  const names = runs.map(r => r.label).join(' \u00b7 ');
  const dates = union(runs.map(r => r.context.start_time).filter(Boolean));
  const h = el('header', {class: 'top'}, el('h1', {text: 'soapbench report: ' + (runs.length > 3 ? `${runs.length} runs` : names)}));
  if (runs.length > 3) h.append(el('div', {class: 'sub', text: names}));
  h.append(el('div', {class: 'sub', text: `${runs.length} run${runs.length > 1 ? 's' : ''} \u00b7 ` +
    `${data.operations.join(', ')} \u00b7 ${dates.length ? dates[0] + (dates.length > 1 ? ' to ' + dates[dates.length - 1] : '') : ''}`}));
  return h;
}

function payloadText(p) {
  const parts = [];
  if (p.string_length != null) parts.push(`string ${p.string_length} chars`);
  if (p.items != null) parts.push(`${p.items} item${p.items === 1 ? '' : 's'}`);
  if (p.payload_size != null) parts.push(`payload ${p.payload_size}`);
  if (p.binary_bytes != null) parts.push(`binary ${p.binary_bytes} B`);
  if (p.new_connection) parts.push('a connection per call');
  return parts.join(', ');
}

// What was measured: the fields all runs share on one line, a table of those that differ.
function measured(runs) {
  const fields = [['stack', c => c.stack_label], ['target', c => c.url], ['server mode', c => c.server_mode],
    ['client', c => c.client_kind], ['payload', c => payloadText(c.payload || {})], ['started', c => c.start_time],
    ['host', c => c.host], ['CPU', c => `${c.cpu_model} (${c.cores} cores)`], ['kernel', c => c.kernel],
    ['soapbench', c => c.soapbench_version], ['gSOAP', c => c.gsoap_version], ['command', c => c.command_line]];
  const schema = ['schema', r => String(r.schema_version)];
  const value = (f, r) => (f === schema ? f[1](r) : f[1](r.context)) || '\u2013';
  const all = [...fields, schema];
  const same = runs.length > 1 ? all.filter(f => runs.every(r => value(f, r) === value(f, runs[0]))) : [];
  const differ = runs.length > 1 ? all.filter(f => !same.includes(f)) : all;
  const sec = el('section', {class: 'card', id: 'measured'}, el('h3', {text: 'What was measured'}));
  const table = el('table', {class: 'measured'});
  if (runs.length === 1) {  // one run: a field per row
    const body = el('tbody');
    for (const f of differ) body.append(el('tr', {}, el('th', {class: 'text', text: f[0]}), el('td', {class: 'text', text: value(f, runs[0])})));
    table.append(body);
  } else {
    table.append(el('thead', {}, el('tr', {}, el('th', {class: 'text', text: 'run'}), ...differ.map(f => el('th', {class: 'text', text: f[0]})))));
    const body = el('tbody');
    for (const r of runs)
      body.append(el('tr', {}, el('td', {class: 'text', text: r.label}), ...differ.map(f => el('td', {class: 'text', text: value(f, r)}))));
    table.append(body);
  }
  sec.append(el('div', {class: 'scroll'}, table));
  if (same.length)
    sec.append(el('dl', {class: 'same'}, ...same.flatMap(f => [el('dt', {text: f[0]}), el('dd', {text: value(f, runs[0])})])));
  return sec;
}

// Warnings grouped per run by what they say (the text before its numbers), with
// where each happened, so that 98 warnings of 8 stacks read as a dozen lines;
// every warning in full sits below them.
function warningsBox(runs) {
  const all = [], groups = new Map();
  for (const r of runs)
    for (const o of r.operations)
      for (const s of o.steps)
        for (const w of s.warnings || []) {
          const where = `${runs.length > 1 ? r.label + ' \u00b7 ' : ''}${o.operation} \u00b7 ${s.clients} clients`;
          all.push(`${where}: ${w}`);
          const key = (runs.length > 1 ? r.label + ': ' : '') + w.split(/[:(]/)[0].trim();
          if (!groups.has(key)) groups.set(key, {example: w, at: new Map()});
          const g = groups.get(key);
          if (!g.at.has(o.operation)) g.at.set(o.operation, []);
          g.at.get(o.operation).push(s.clients);
        }
  if (!all.length) return null;
  const lines = [...groups].map(([key, g]) => el('li', {title: g.example},
    el('strong', {text: key}), ` \u2014 ${[...g.at].map(([op, cs]) => `${op} at ${cs.join(', ')} clients`).join('; ')}`));
  return el('div', {class: 'box warnings', id: 'warnings', role: 'note'},
            el('strong', {text: `Warnings (${all.length}): what these numbers may really measure`}),
            el('ul', {}, ...lines),
            el('details', {}, el('summary', {text: `every warning in full (${all.length})`}),
               el('ul', {class: 'all'}, ...all.map(t => el('li', {text: t})))));
}

// CXF's table for one run and operation. Thresholds, when the results carry them
// (step.thresholds: [{field, ok, text}]), mark the failed cell.
function cxfTable(run, name) {
  const steps = stepsOf(run, name);
  const rate = steps.some(s => s.target_rate > 0), unc = steps.some(s => s.uncorrected_ms);
  const lag = steps.some(s => s.send_lag_ms);
  const cols = [['clients', s => String(s.clients)]];
  if (rate) cols.push(['target/s', s => s.target_rate > 0 ? fmtRate(s.target_rate) : '\u2013']);
  cols.push(['req/s', s => fmtRate(s.throughput), 'throughput']);
  for (const k of ['mean', 'p50', 'p90', 'p99', 'p99.9', 'max']) cols.push([k + ' ms', s => sig3(lat(s, k)), k]);
  if (unc) cols.push(['p99 uncorr. ms', s => sig3(s.uncorrected_ms ? s.uncorrected_ms.p99 : null)]);
  if (lag) cols.push(['send lag p99 ms', s => sig3(s.send_lag_ms ? s.send_lag_ms.p99 : null)]);
  cols.push(['errors', s => String(s.errors), 'errors']);
  cols.push(['by kind', s => KINDS.filter(k => s.failures[k]).map(k => `${k} ${s.failures[k]}`).join(', ')]);
  cols.push(['server CPU %', s => fmtPct(s.server_cpu_pct), 'server_cpu_pct'], ['client CPU %', s => fmtPct(s.client_cpu_pct)]);
  cols.push(['server \u00b5s/req', s => sig3(s.server_cpu_us)], ['client \u00b5s/req', s => sig3(s.client_cpu_us)]);
  cols.push(['bytes/call', s => String(Math.round(s.request_bytes + s.response_bytes))]);
  const table = el('table', {class: 'cxf', 'data-run': run.label, 'data-operation': name});
  table.append(el('thead', {}, el('tr', {}, ...cols.map(c => el('th', {text: c[0]})))));
  const body = el('tbody');
  for (const s of steps) {
    const tr = el('tr');
    for (const [, f, field] of cols) {
      const bad = (s.thresholds || []).filter(t => t.field === field && !t.ok);
      const td = el('td', {text: f(s)});
      if (bad.length) { td.className = 'failed'; td.title = bad.map(t => t.text).join('; '); }
      tr.append(td);
    }
    body.append(tr);
  }
  table.append(body);
  return el('div', {class: 'scroll'}, table);
}

function throughputChart(runs, order, name) {
  const series = order.map(i => ({name: runs[i].label, color: color(i), points: stepsOf(runs[i], name).map(s => (
    {x: s.clients, y: s.throughput, tip: `p99: ${sig3(lat(s, 'p99'))} ms, errors: ${s.errors}`}))}));
  const xs = union(order.flatMap(i => stepsOf(runs[i], name).map(s => s.clients)));
  return lineChart({id: `${name}-throughput`, title: `${name}: throughput vs clients`,
    note: runs.length > 1 ? 'legend and table ordered by peak throughput' : '', xLabel: 'clients', xInteger: true,
    yLabel: 'requests/s', yFmt: fmtRate, series,
    table: {head: ['clients', ...order.map(i => runs[i].label + ' req/s')],
            rows: xs.map(x => [String(x), ...order.map(i => { const s = stepAt(runs[i], name, x); return s ? fmtRate(s.throughput) : '\u2013'; })])}});
}

// One run: a series per percentile. Several: one series per run of the percentile chosen.
function latencyChart(runs, order, name, pct) {
  let series = [];
  if (runs.length === 1) {
    const steps = stepsOf(runs[0], name);
    series = PCTS.map((k, j) => ({name: k, color: color(j), points: steps.map(s => ({x: s.clients, y: lat(s, k)}))}));
    if (steps.some(s => s.uncorrected_ms))
      series.push({name: 'p99 uncorrected', color: color(3), dash: true,
                   points: steps.map(s => ({x: s.clients, y: s.uncorrected_ms ? s.uncorrected_ms.p99 : null}))});
    if (steps.some(s => s.send_lag_ms))
      series.push({name: 'send lag p99', color: color(7), dash: true,
                   points: steps.map(s => ({x: s.clients, y: s.send_lag_ms ? s.send_lag_ms.p99 : null}))});
  } else {
    for (const i of order) {
      const steps = stepsOf(runs[i], name);
      series.push({name: runs[i].label, color: color(i), points: steps.map(s => ({x: s.clients, y: lat(s, pct)}))});
      if (steps.some(s => s.uncorrected_ms))
        series.push({name: runs[i].label + ' uncorrected', color: color(i), dash: true,
                     points: steps.map(s => ({x: s.clients, y: s.uncorrected_ms ? s.uncorrected_ms[pct] : null}))});
    }
  }
  const xs = union(series.flatMap(s => s.points.map(p => p.x)));
  const rows = xs.map(x => [String(x), ...series.map(s => { const p = s.points.find(q => q.x === x); return p ? sig3(p.y) : '\u2013'; })]);
  let controls = null;
  if (runs.length > 1) {
    const sel = el('select', {'aria-label': 'percentile'}, ...PCTS.map(k => el('option', {value: k, text: k})));
    sel.value = pct;
    sel.addEventListener('change', () => { const f = document.getElementById(`${name}-latency`); f.replaceWith(latencyChart(runs, order, name, sel.value)); });
    controls = el('div', {class: 'controls'}, 'percentile: ', sel);
  }
  return lineChart({id: `${name}-latency`, title: `${name}: response time vs clients` + (runs.length > 1 ? ` (${pct})` : ''),
    note: 'log axis: fast and slow stacks stay readable side by side', xLabel: 'clients', xInteger: true, yLabel: 'ms', yLog: true, series, controls,
    table: {head: ['clients', ...series.map(s => s.name + ' ms')], rows}});
}

// HdrHistogram's latency by percentile: one series per step (one run) or per run at a client count.
function spectrumChart(runs, order, name, clients) {
  let series = [];
  const all = union(order.flatMap(i => stepsOf(runs[i], name).map(s => s.clients)));
  if (runs.length === 1) {
    stepsOf(runs[0], name).forEach((s, j) => {
      series.push({name: `${s.clients} clients`, color: color(j), points: spectrumPoints(s.spectrum)});
      if (s.uncorrected_spectrum)
        series.push({name: `${s.clients} clients uncorrected`, color: color(j), dash: true, points: spectrumPoints(s.uncorrected_spectrum)});
    });
  } else {
    for (const i of order) {
      const s = stepAt(runs[i], name, clients);
      if (s) series.push({name: runs[i].label, color: color(i), points: spectrumPoints(s.spectrum)});
    }
  }
  const maxX = Math.max(1, ...series.flatMap(s => s.points.map(p => p.x)));
  const pcts = union(series.flatMap(s => s.points.map(p => p.p)));
  const rows = pcts.map(p => [p < 100 ? p + '%' : 'max', ...series.map(s => { const q = s.points.find(x => x.p === p); return q ? sig3(q.y) : '\u2013'; })]);
  let controls = null;
  if (runs.length > 1) {
    const sel = el('select', {'aria-label': 'clients'}, ...all.map(c => el('option', {value: c, text: c + ' clients'})));
    sel.value = String(clients);
    sel.addEventListener('change', () => { const f = document.getElementById(`${name}-spectrum`); f.replaceWith(spectrumChart(runs, order, name, Number(sel.value))); });
    controls = el('div', {class: 'controls'}, 'step: ', sel);
  }
  return lineChart({id: `${name}-spectrum`, title: `${name}: latency by percentile` + (runs.length > 1 ? ` at ${clients} clients` : ', per step'),
    note: 'x axis in nines: the tail to the right', xLabel: 'percentile', yLabel: 'ms', yLog: true,
    xTicks: ninesTicks(maxX), xFmt: v => String(v), series, controls,
    table: {head: ['percentile', ...series.map(s => s.name + ' ms')], rows}});
}

// The intervals across the run: warm-up effects, stalls and drift.
function timeCharts(runs, order, name) {
  const make = (key, idx, yLabel, yLog, fmt) => {
    const series = order.map(i => ({name: runs[i].label, color: color(i), points: stepsOf(runs[i], name).flatMap(s => s.intervals.map(v => (
      {x: v[0], y: v[idx], tip: `${v[4]} clients, errors: ${v[3]}`})))}));
    const rows = order.flatMap(i => stepsOf(runs[i], name).flatMap(s => s.intervals.map(v => [runs[i].label, sig3(v[0]), String(v[4]), fmt(v[idx]), String(v[3])])));
    return lineChart({id: `${name}-time-${key}`, title: `${name}: ${key} across the run`, note: 'one point per interval; steps follow each other',
      xLabel: 'seconds', yLabel, yLog, yFmt: fmt, series,
      table: {head: ['run', 't s', 'clients', yLabel, 'errors'], rows, textFirst: true}});
  };
  return [make('throughput', 1, 'requests/s', false, fmtRate), make('p99', 2, 'p99 ms', true, sig3)];
}

function operationSection(data, runs, name) {
  const order = data.order[name].filter(i => stepsOf(runs[i], name).length);
  const sec = el('section', {class: 'operation', id: `op-${name}`}, el('h2', {text: name}));
  // The spectrum of several runs opens at the client count where the fastest peaked.
  const first = stepsOf(runs[order[0]], name);
  const peak = first.reduce((a, b) => (b.throughput > a.throughput ? b : a), first[0]).clients;
  const hasIntervals = order.some(i => stepsOf(runs[i], name).some(s => s.intervals.length));
  const time = hasIntervals ? timeCharts(runs, order, name) : [];
  sec.append(el('div', {class: 'grid2'}, throughputChart(runs, order, name), latencyChart(runs, order, name, 'p99')));
  sec.append(el('div', {class: 'grid2'}, spectrumChart(runs, order, name, peak), ...time.slice(0, 1)));
  if (time.length) sec.append(el('div', {class: 'grid2'}, time[1]));
  for (const i of order)
    sec.append(el('section', {class: 'card'}, el('h3', {text: runs.length > 1 ? `${runs[i].label}: ${name}` : `${name}: the steps`}), cxfTable(runs[i], name)));
  return sec;
}

function render() {
  const t0 = performance.now();
  const data = JSON.parse(document.getElementById('soapbench-data').textContent);
  const runs = data.runs, main = document.getElementById('report');
  main.textContent = '';
  document.body.append(el('div', {id: 'tip', role: 'tooltip'}));
  main.append(header(data, runs));
  if (data.verdict && data.verdict.text)  // `soapbench compare`'s verdict, once it gives one
    main.append(el('div', {class: 'box verdict' + (data.verdict.ok === false ? ' bad' : ''), id: 'verdict', text: data.verdict.text}));
  const partial = runs.filter(r => r.partial);
  if (partial.length)
    main.append(el('div', {class: 'box partial', id: 'partial-banner', role: 'alert',
      text: `Partial: ${partial.map(r => r.label).join(', ')} stopped early (interrupted or failed); only the steps that finished are shown.`}));
  const w = warningsBox(runs);
  if (w) main.append(w);
  main.append(measured(data.operations.length ? data.order[data.operations[0]].map(i => runs[i]) : runs));
  for (const name of data.operations) main.append(operationSection(data, runs, name));
  main.append(el('footer', {text: `Written by ${data.generator || 'soapbench'}. Everything on this page is in this one file.`}));
  document.body.dataset.renderMs = String(performance.now() - t0);  // the script's own time
  document.body.dataset.readyMs = String(performance.now());  // since the navigation started
  document.body.dataset.ready = 'true';
}

render();
