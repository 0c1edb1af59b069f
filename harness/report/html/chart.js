// SVG line charts for soapbench's report: linear or log axes, a point per
// value with its values on hover (and on keyboard focus), a legend, and the
// same numbers in a table under the chart. No library: the page must open
// offline, and these few charts need little.
'use strict';

const SVG_NS = 'http://www.w3.org/2000/svg';
const PALETTE = ['#2456a6', '#e07b1a', '#2e9a4b', '#c7322f', '#7c4fb5', '#8c5a3c', '#d45fa6', '#5f6b7a',
                 '#a8a116', '#1aa2b8'];

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v; else if (k === 'text') e.textContent = v; else e.setAttribute(k, v);
  }
  for (const c of children) if (c != null) e.append(c);
  return e;
}

function svg(tag, attrs) {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  return e;
}

// Three significant digits: what a reader compares, without noise.
function sig3(v) {
  if (v == null || !isFinite(v)) return '\u2013';
  return String(Number(Number(v).toPrecision(3)));
}
function fmtRate(v) { return v == null || !isFinite(v) ? '\u2013' : (Math.abs(v) >= 100 ? String(Math.round(v)) : sig3(v)); }
function fmtPct(v) { return v == null || !isFinite(v) ? '\u2013' : Number(v).toFixed(1); }

// Ticks of a linear axis at 1, 2 or 5 x 10^k.
function linearTicks(lo, hi) {
  const span = hi - lo || 1;
  const raw = span / 5, mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map(m => m * mag).find(s => span / s <= 6);
  const ticks = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) ticks.push(Number(t.toPrecision(12)));
  return ticks;
}

// Ticks of a log axis: every decade, and 2 and 5 between them when few decades show.
function logTicks(lo, hi) {
  const ticks = [], d0 = Math.floor(Math.log10(lo)), d1 = Math.ceil(Math.log10(hi));
  const mults = d1 - d0 <= 3 ? [1, 2, 5] : [1];
  for (let d = d0; d <= d1; d++)
    for (const m of mults) {
      const t = Number((m * Math.pow(10, d)).toPrecision(12));
      if (t >= lo * 0.999 && t <= hi * 1.001) ticks.push(t);
    }
  return ticks;
}

function showTip(evt, text) {
  const tip = document.getElementById('tip');
  tip.textContent = text;
  tip.style.display = 'block';
  const r = evt.target.getBoundingClientRect ? evt.target.getBoundingClientRect() : null;
  const x = evt.clientX || (r ? r.right : 0), y = evt.clientY || (r ? r.top : 0);
  tip.style.left = Math.min(x + 12, window.innerWidth - tip.offsetWidth - 8) + 'px';
  tip.style.top = Math.max(y - tip.offsetHeight - 10, 4) + 'px';
}
function hideTip() { document.getElementById('tip').style.display = 'none'; }

// spec: {id, title, note, xLabel, yLabel, xLog, yLog, xFmt, yFmt, xTicks: [{v, label}] (optional),
//        xInteger (ticks on whole numbers only: client counts),
//        series: [{name, color, dash, points: [{x, y, tip}]}], table: {head: [...], rows: [[...]]}}
function lineChart(spec) {
  const W = 560, H = 320, M = {l: 62, r: 14, t: 12, b: 42};
  const pts = spec.series.flatMap(s => s.points).filter(p => p.y != null && isFinite(p.y) && (!spec.yLog || p.y > 0));
  const fig = el('figure', {class: 'chart', id: spec.id, 'data-chart': spec.id});
  fig.append(el('figcaption', {text: spec.title}));
  if (spec.note) fig.append(el('div', {class: 'note', text: spec.note}));
  if (spec.controls) fig.append(spec.controls);
  const legend = el('div', {class: 'legend'});
  for (const s of spec.series) {
    const key = el('span', {class: 'key' + (s.dash ? ' dash' : '')});
    key.style.background = s.color; key.style.color = s.color;
    legend.append(el('span', {}, key, s.name));
  }
  fig.append(legend);
  const root = svg('svg', {class: 'plot', viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': spec.title});
  fig.append(root);
  if (!pts.length) {
    const t = svg('text', {x: W / 2, y: H / 2, 'text-anchor': 'middle'});
    t.textContent = 'no data';
    root.append(t);
  } else {
    const xs = pts.map(p => p.x), ys = pts.map(p => p.y);
    let x0 = Math.min(...xs), x1 = Math.max(...xs), y0 = Math.min(...ys), y1 = Math.max(...ys);
    if (spec.xLog) { x0 /= 1.2; x1 *= 1.2; } else { if (spec.xZero !== false) x0 = Math.min(0, x0); if (x1 === x0) x1 = x0 + 1; }
    if (spec.yLog) { y0 /= 1.5; y1 *= 1.5; } else { y0 = Math.min(0, y0); y1 = y1 === y0 ? y0 + 1 : y1 * 1.08; }
    const f = (v, lo, hi, log) => log ? (Math.log(v) - Math.log(lo)) / (Math.log(hi) - Math.log(lo)) : (v - lo) / (hi - lo);
    const px = v => M.l + f(v, x0, x1, spec.xLog) * (W - M.l - M.r);
    const py = v => H - M.b - f(v, y0, y1, spec.yLog) * (H - M.t - M.b);
    const xFmt = spec.xFmt || sig3, yFmt = spec.yFmt || sig3;
    const yt = spec.yLog ? logTicks(y0, y1) : linearTicks(y0, y1);
    for (const t of yt) {
      root.append(svg('line', {class: 'grid', x1: M.l, x2: W - M.r, y1: py(t), y2: py(t)}));
      const lab = svg('text', {x: M.l - 6, y: py(t) + 4, 'text-anchor': 'end'});
      lab.textContent = yFmt(t);
      root.append(lab);
    }
    const xt = spec.xTicks ? spec.xTicks.filter(t => t.v >= x0 && t.v <= x1)
                           : (spec.xLog ? logTicks(x0, x1) : linearTicks(x0, x1))
                               .filter(v => !spec.xInteger || Number.isInteger(v)).map(v => ({v, label: xFmt(v)}));
    for (const t of xt) {
      root.append(svg('line', {class: 'grid', x1: px(t.v), x2: px(t.v), y1: M.t, y2: H - M.b}));
      const lab = svg('text', {x: px(t.v), y: H - M.b + 15, 'text-anchor': 'middle'});
      lab.textContent = t.label;
      root.append(lab);
    }
    root.append(svg('line', {class: 'axis', x1: M.l, x2: W - M.r, y1: H - M.b, y2: H - M.b}));
    root.append(svg('line', {class: 'axis', x1: M.l, x2: M.l, y1: M.t, y2: H - M.b}));
    const xl = svg('text', {class: 'title', x: (M.l + W - M.r) / 2, y: H - 6, 'text-anchor': 'middle'});
    xl.textContent = spec.xLabel;
    const yl = svg('text', {class: 'title', x: 0, y: 0, 'text-anchor': 'middle',
                            transform: `translate(14 ${(M.t + H - M.b) / 2}) rotate(-90)`});
    yl.textContent = spec.yLabel + (spec.yLog ? ' (log)' : '');
    root.append(xl, yl);
    for (const s of spec.series) {
      // A missing value breaks the line rather than bridging it.
      let d = '', pen = 'M';
      for (const p of s.points) {
        if (p.y == null || !isFinite(p.y) || (spec.yLog && p.y <= 0)) { pen = 'M'; continue; }
        d += `${pen}${px(p.x).toFixed(1)},${py(p.y).toFixed(1)}`;
        pen = 'L';
      }
      root.append(svg('path', {d, fill: 'none', stroke: s.color, 'stroke-width': 2,
                               'stroke-dasharray': s.dash ? '6 4' : 'none', 'stroke-linejoin': 'round'}));
      const dots = s.points.length <= 60;  // long time series: the line carries it, a few dots would hide it
      for (const p of s.points) {
        if (p.y == null || !isFinite(p.y) || (spec.yLog && p.y <= 0)) continue;
        const tip = `${s.name}\n${spec.xLabel}: ${p.xText || xFmt(p.x)}\n${spec.yLabel}: ${yFmt(p.y)}` +
                    (p.tip ? '\n' + p.tip : '');
        const c = svg('circle', {cx: px(p.x), cy: py(p.y), r: dots ? 3.5 : 2, fill: s.color, tabindex: 0,
                                 'data-tip': tip, 'data-series': s.name});
        c.addEventListener('mousemove', e => showTip(e, tip));
        c.addEventListener('mouseleave', hideTip);
        c.addEventListener('focus', e => showTip(e, tip));
        c.addEventListener('blur', hideTip);
        root.append(c);
      }
    }
  }
  if (spec.table) fig.append(dataTable(spec.table, 'the numbers of this chart'));
  return fig;
}

// A table in a <details> (closed): the chart's numbers for keyboard and screen-reader users.
function dataTable(t, summary) {
  const table = el('table', {class: 'data'});
  const head = el('tr');
  t.head.forEach((h, i) => head.append(el('th', {class: i === 0 && t.textFirst ? 'text' : '', text: h})));
  table.append(el('thead', {}, head));
  const body = el('tbody');
  for (const row of t.rows) {
    const tr = el('tr');
    row.forEach((v, i) => tr.append(el('td', {class: i === 0 && t.textFirst ? 'text' : '', text: v})));
    body.append(tr);
  }
  table.append(body);
  return el('details', {}, el('summary', {text: summary}), el('div', {class: 'scroll'}, table));
}
