/**
 * The report's own inline script: reads the chart specs embedded as JSON and draws each with
 * uPlot. It holds no report logic (that lives in charts.ts); it aligns series, formats axes,
 * draws markers and limit lines, places their labels clear of each other, and flags each
 * container `data-rendered` once drawn.
 *
 * @module
 */

/** Plain browser JavaScript, inlined after uPlot. */
export const CHART_SCRIPT = `
(function () {
  'use strict';
  var specs = JSON.parse(document.getElementById('goodput-charts').textContent);

  // uPlot wants one x array shared by all series: merge every series' points into rows sorted
  // by x, one row per distinct x where the series allow it (uPlot's auto-range looks up the x
  // window by binary search, so repeated x values at the edge would hide points from it),
  // undefined where a series has no point (uPlot skips it and joins the line across), null
  // where the series itself has a gap (the line breaks there).
  function align(series) {
    var points = [];
    series.forEach(function (s, si) {
      for (var i = 0; i < s.x.length; i++) points.push([s.x[i], si, s.y[i]]);
    });
    points.sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
    var xs = [];
    var ys = series.map(function () { return []; });
    points.forEach(function (p) {
      var row = xs.length - 1;
      if (row < 0 || xs[row] !== p[0] || ys[p[1]][row] !== undefined) {
        xs.push(p[0]);
        ys.forEach(function (col) { col.push(undefined); });
        row++;
      }
      ys[p[1]][row] = p[2];
    });
    // A gap (null) in a series that breaks at its gaps stretches over the rows of other series
    // around it, back to the series' previous point and on to its next: uPlot leaves out of the
    // line only the span between a null's neighbouring rows.
    series.forEach(function (s, si) {
      if (!s.gaps) return;
      var col = ys[si];
      for (var r = 0; r < col.length; r++) {
        if (col[r] !== null) continue;
        for (var b = r - 1; b >= 0 && col[b] === undefined; b--) col[b] = null;
        for (var f = r + 1; f < col.length && col[f] === undefined; f++) col[f] = null;
      }
    });
    return [xs].concat(ys);
  }

  function fmt(v) {
    if (v == null || !isFinite(v)) return '';
    var a = Math.abs(v);
    if (a >= 1e6) return +(v / 1e6).toPrecision(3) + 'M';
    if (a >= 1e4) return +(v / 1e3).toPrecision(3) + 'k';
    if (a >= 100) return String(Math.round(v));
    if (a === 0) return '0';
    return String(+v.toPrecision(3));
  }

  function axisValues(u, splits) { return splits.map(fmt); }

  // Wall-clock x (seconds since the epoch), always in UTC, on two lines: the time ("14:05", with
  // seconds when the ticks are closer than a minute) and, under the first tick and wherever the
  // day changes, the date ("12-02"); the date alone when ticks are a day apart or more. Short
  // lines keep neighbouring labels apart at the tick spacing asked of uPlot (space).
  function utc(v, step) {
    if (v == null || !isFinite(v)) return '';
    var iso = new Date(v * 1000).toISOString();
    if (step >= 86400) return iso.slice(0, 10);
    if (step < 60) return iso.slice(5, 10) + ' ' + iso.slice(11, 19);
    return iso.slice(5, 10) + ' ' + iso.slice(11, 16);
  }
  function timeValues(u, splits, axisIdx, space, incr) {
    var day = null;
    return splits.map(function (v) {
      if (v == null || !isFinite(v)) return '';
      var iso = new Date(v * 1000).toISOString();
      if (incr >= 86400) return iso.slice(0, 10);
      var time = incr < 60 ? iso.slice(11, 19) : iso.slice(11, 16);
      var date = iso.slice(5, 10);
      var label = date === day ? time : time + '\\n' + date;
      day = date;
      return label;
    });
  }
  var TIME_INCRS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800, 604800];

  var SCALE_OF_AXIS = ['y', 'y2', 'y3'];

  // Vertical markers and horizontal limit lines, dashed, on the canvas; their labels are placed
  // as elements over the plot (placeLabels).
  function linesHook(markers, limits) {
    return function (u) {
      if (!markers.length && !limits.length) return;
      var ctx = u.ctx;
      var px = window.devicePixelRatio || 1;
      var left = u.bbox.left, top = u.bbox.top, width = u.bbox.width, height = u.bbox.height;
      ctx.save();
      ctx.lineWidth = 1.5 * px;
      ctx.setLineDash([5 * px, 4 * px]);
      markers.forEach(function (m) {
        var x = u.valToPos(m.x, 'x', true);
        if (!(x >= left && x <= left + width)) return;
        ctx.strokeStyle = m.color;
        ctx.beginPath();
        ctx.moveTo(x, top);
        ctx.lineTo(x, top + height);
        ctx.stroke();
      });
      limits.forEach(function (l) {
        var y = u.valToPos(l.y, SCALE_OF_AXIS[l.axis || 0], true);
        if (!(y >= top && y <= top + height)) return;
        ctx.strokeStyle = l.color;
        ctx.beginPath();
        ctx.moveTo(left, y);
        ctx.lineTo(left + width, y);
        ctx.stroke();
      });
      ctx.restore();
    };
  }

  // Interval whiskers ([x, low, high] in the series' scale) of the series shown: a vertical
  // line with caps, in near-black over bars and points alike.
  function whiskersHook(series) {
    return function (u) {
      var ctx = u.ctx;
      var px = window.devicePixelRatio || 1;
      ctx.save();
      ctx.strokeStyle = '#111827';
      ctx.lineWidth = 1.5 * px;
      series.forEach(function (s, si) {
        if (!s.whiskers || !u.series[si + 1].show) return;
        var scale = SCALE_OF_AXIS[s.axis || 0];
        s.whiskers.forEach(function (w) {
          var x = u.valToPos(w[0], 'x', true), lo = u.valToPos(w[1], scale, true), hi = u.valToPos(w[2], scale, true);
          ctx.beginPath();
          ctx.moveTo(x, lo); ctx.lineTo(x, hi);
          ctx.moveTo(x - 6 * px, lo); ctx.lineTo(x + 6 * px, lo);
          ctx.moveTo(x - 6 * px, hi); ctx.lineTo(x + 6 * px, hi);
          ctx.stroke();
        });
      });
      ctx.restore();
    };
  }

  // Each label goes to the first of its candidate places that lies inside the plot and clear of
  // the labels placed before it: a marker's beside its line (right, then left), a row lower at
  // each try; a limit's above or below its line, further left at each try. Two lines close
  // together never print their labels over each other.
  function placeLabels(u, markers, limits) {
    var over = u.over;
    over.querySelectorAll('.chart-label').forEach(function (n) { n.remove(); });
    var W = over.clientWidth, H = over.clientHeight, placed = [];
    var items = [];
    markers.forEach(function (m) {
      var x = u.valToPos(m.x, 'x');
      if (!(x >= 0 && x <= W)) return;
      items.push({ kind: 'marker', label: m.label, color: m.color, candidates: function (w, h) {
        var c = [];
        for (var r = 0; r < 12; r++) c.push({ x: x + 4, y: 4 + r * (h + 3) }, { x: x - 4 - w, y: 4 + r * (h + 3) });
        return c;
      } });
    });
    limits.forEach(function (l) {
      var y = u.valToPos(l.y, SCALE_OF_AXIS[l.axis || 0]);
      if (!(y >= 0 && y <= H)) return;
      items.push({ kind: 'limit', label: l.label, color: l.color, candidates: function (w, h) {
        var c = [];
        for (var k = 0; k < 12; k++) c.push({ x: W - w - 4 - k * (w + 12), y: y - h - 2 }, { x: W - w - 4 - k * (w + 12), y: y + 2 });
        return c;
      } });
    });
    items.forEach(function (it) {
      var el = document.createElement('div');
      el.className = 'chart-label ' + it.kind;
      el.textContent = it.label;
      el.style.color = it.color;
      over.appendChild(el);
      var w = el.offsetWidth, h = el.offsetHeight;
      var inside = function (c) { return c.x >= 0 && c.y >= 0 && c.x + w <= W && c.y + h <= H; };
      var clear = function (c) {
        return placed.every(function (p) {
          return c.x + w + 2 <= p.x || p.x + p.w + 2 <= c.x || c.y + h + 1 <= p.y || p.y + p.h + 1 <= c.y;
        });
      };
      var cands = it.candidates(w, h);
      var pick = cands.find(function (c) { return inside(c) && clear(c); }) || cands.find(inside) || cands[0];
      el.style.left = pick.x + 'px';
      el.style.top = pick.y + 'px';
      placed.push({ x: pick.x, y: pick.y, w: w, h: h });
    });
  }

  // An axis's range from 0 (or below, for negative data) to a little above its highest value,
  // taking in the limit lines drawn on it.
  function autoRange(limitValues) {
    return function (u, min, max) {
      var lo = Math.min.apply(null, [0, min].concat(limitValues).filter(isFinite));
      var hi = Math.max.apply(null, [max].concat(limitValues).filter(isFinite));
      return [lo, hi > 0 ? hi * 1.05 : 1];
    };
  }

  function seriesOpts(s) {
    var o = { label: s.label, stroke: s.color, width: 2, scale: SCALE_OF_AXIS[s.axis || 0], spanGaps: !s.gaps,
      value: function (u, v) { return fmt(v); } };
    if (s.style === 'points') {
      o.paths = function () { return null; };
      o.points = { show: true, space: 0, size: 4, width: 0, stroke: s.color, fill: s.color + '66' };
    } else if (s.style === 'dashed') {
      o.dash = [6, 4];
      o.points = { show: true, space: 0, size: 7, stroke: s.color, fill: '#fff', width: 2 };
    } else if (s.style === 'bars') {
      o.paths = uPlot.paths.bars({ size: [0.6, 80] });
      o.fill = s.color + '99';
      o.points = { show: false };
    } else if (s.style === 'dots') {
      o.paths = function () { return null; };
      o.points = { show: true, space: 0, size: 11, width: 2, stroke: s.color, fill: s.color + 'cc' };
    } else if (s.style === 'step') {
      o.paths = uPlot.paths.stepped({ align: 1 });
      o.width = 1.5;
    }
    return o;
  }

  var charts = [];
  specs.forEach(function (spec) {
    var el = document.getElementById(spec.id);
    if (!el) return;
    var data = align(spec.series.map(function (s) { return { x: s.data.x, y: s.data.y, gaps: s.gaps }; }));
    var limits = spec.limits || [];
    // Whisker ends count as limits of their axis: the range takes them in.
    var limitsOn = function (axis) {
      var ys = limits.filter(function (l) { return (l.axis || 0) === axis; }).map(function (l) { return l.y; });
      spec.series.forEach(function (s) {
        if ((s.axis || 0) === axis) (s.whiskers || []).forEach(function (w) { ys.push(w[1], w[2]); });
      });
      return ys;
    };
    var cats = spec.xCategories;
    var axes = [
      spec.xTime
        ? { label: spec.xLabel, values: timeValues, incrs: TIME_INCRS, space: 80, size: 52 }
        : cats
          ? { label: spec.xLabel, size: 40, splits: function () { return cats.map(function (c, i) { return i; }); },
              values: function (u, splits) { return splits.map(function (i) { return cats[i] == null ? '' : cats[i]; }); } }
          : { label: spec.xLabel, values: axisValues, size: 40 },
      { label: spec.yLabel, scale: 'y', values: axisValues, size: 56 },
    ];
    if (spec.y2Label) axes.push({ label: spec.y2Label, scale: 'y2', side: 1, values: axisValues, size: 56, grid: { show: false } });
    if (spec.y3Label) axes.push({ label: spec.y3Label, scale: 'y3', side: 1, values: axisValues, size: 56, grid: { show: false } });
    // The x range takes in the markers, so that an SLO beyond the data still shows.
    var marks = spec.markers.map(function (m) { return m.x; });
    var scales = { x: { time: false, range: spec.xRange ? spec.xRange.slice() : function (u, min, max) {
      var lo = Math.min.apply(null, [spec.xMin != null ? Math.max(min, spec.xMin) : min].concat(marks));
      var hi = Math.max.apply(null, [max].concat(marks));
      if (spec.xLog) return uPlot.rangeLog(lo, hi, 10, true);
      var pad = (hi - lo) * 0.02 || 1;
      return [marks.length && lo < min ? lo - pad : lo, marks.length && hi > max ? hi + pad : hi];
    } }, y: {}, y2: {}, y3: {} };
    if (spec.xLog) { scales.x.distr = 3; scales.x.log = 10; }
    if (cats) scales.x = { time: false, range: [-0.5, cats.length - 0.5] };
    scales.y = { range: spec.yRange ? spec.yRange.slice() : autoRange(limitsOn(0)) };
    scales.y2 = { range: spec.y2Range ? spec.y2Range.slice() : autoRange(limitsOn(1)) };
    scales.y3 = { range: autoRange(limitsOn(2)) };
    var opts = {
      width: Math.max(320, el.clientWidth),
      height: 300,
      // a time axis's last label is centred on the plot's right edge: room for its half
      padding: [null, spec.xTime && !spec.y2Label ? 28 : null, null, null],
      scales: scales,
      axes: axes,
      legend: { live: true },
      cursor: { drag: { x: true, y: false } },
      series: [{ label: spec.xLabel, value: function (u, v) {
        if (cats) return v == null ? '' : cats[v] || '';
        return spec.xTime ? (v == null ? '' : utc(v, 1) + ' UTC') : fmt(v);
      } }].concat(spec.series.map(seriesOpts)),
      hooks: {
        draw: [
          linesHook(spec.markers, limits),
          whiskersHook(spec.series),
          function (u) { placeLabels(u, spec.markers, limits); },
          function () { el.setAttribute('data-rendered', 'true'); },
        ],
      },
    };
    charts.push({ el: el, plot: new uPlot(opts, data, el) });
  });

  var pending = 0;
  window.addEventListener('resize', function () {
    cancelAnimationFrame(pending);
    pending = requestAnimationFrame(function () {
      charts.forEach(function (c) { c.plot.setSize({ width: Math.max(320, c.el.clientWidth), height: 300 }); });
    });
  });
  window.goodputCharts = charts;
  document.body.setAttribute('data-charts', String(charts.length));
})();
`;
