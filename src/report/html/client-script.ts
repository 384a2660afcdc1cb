/**
 * The report's own inline script: reads the chart specs embedded as JSON and draws each with
 * uPlot. It holds no report logic (that lives in charts.ts); it aligns series, formats axes,
 * draws markers, and flags each container `data-rendered` once drawn.
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
  // window by binary search, so repeated x values at the edge would hide points from it), null
  // where a series has no point (spanGaps joins the line across them).
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
      if (row < 0 || xs[row] !== p[0] || ys[p[1]][row] !== null) {
        xs.push(p[0]);
        ys.forEach(function (col) { col.push(null); });
        row++;
      }
      ys[p[1]][row] = p[2];
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

  // Wall-clock x (seconds since the epoch), always in UTC: "12-02 14:05", with seconds when the
  // ticks are closer than a minute, the date alone when a day apart or more.
  function utc(v, step) {
    if (v == null || !isFinite(v)) return '';
    var iso = new Date(v * 1000).toISOString();
    if (step >= 86400) return iso.slice(0, 10);
    if (step < 60) return iso.slice(5, 10) + ' ' + iso.slice(11, 19);
    return iso.slice(5, 10) + ' ' + iso.slice(11, 16);
  }
  function timeValues(u, splits, axisIdx, space, incr) { return splits.map(function (v) { return utc(v, incr); }); }
  var TIME_INCRS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800, 604800];

  function markerHook(markers) {
    return function (u) {
      if (!markers.length) return;
      var ctx = u.ctx;
      var px = window.devicePixelRatio || 1;
      ctx.save();
      markers.forEach(function (m) {
        var x = u.valToPos(m.x, 'x', true);
        if (!(x >= u.bbox.left && x <= u.bbox.left + u.bbox.width)) return;
        ctx.strokeStyle = m.color;
        ctx.fillStyle = m.color;
        ctx.lineWidth = 1.5 * px;
        ctx.setLineDash([5 * px, 4 * px]);
        ctx.beginPath();
        ctx.moveTo(x, u.bbox.top);
        ctx.lineTo(x, u.bbox.top + u.bbox.height);
        ctx.stroke();
        ctx.setLineDash([]);
        ctx.font = (11 * px) + 'px system-ui, sans-serif';
        ctx.textBaseline = 'top';
        ctx.fillText(m.label, x + 4 * px, u.bbox.top + 4 * px);
      });
      ctx.restore();
    };
  }

  function seriesOpts(s) {
    var o = { label: s.label, stroke: s.color, width: 2, scale: s.axis === 1 ? 'y2' : 'y', spanGaps: true,
      value: function (u, v) { return fmt(v); } };
    if (s.style === 'points') {
      o.paths = function () { return null; };
      o.points = { show: true, space: 0, size: 4, width: 0, stroke: s.color, fill: s.color + '66' };
    } else if (s.style === 'dashed') {
      o.dash = [6, 4];
      o.points = { show: true, space: 0, size: 7, stroke: s.color, fill: '#fff', width: 2 };
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
    var data = align(spec.series.map(function (s) { return s.data; }));
    var axes = [
      spec.xTime
        ? { label: spec.xLabel, values: timeValues, incrs: TIME_INCRS, space: 90, size: 40 }
        : { label: spec.xLabel, values: axisValues, size: 40 },
      { label: spec.yLabel, scale: 'y', values: axisValues, size: 56 },
    ];
    if (spec.y2Label) axes.push({ label: spec.y2Label, scale: 'y2', side: 1, values: axisValues, size: 56, grid: { show: false } });
    // The x range takes in the markers, so that an SLO beyond the data still shows.
    var marks = spec.markers.map(function (m) { return m.x; });
    var scales = { x: { time: false, range: spec.xRange ? spec.xRange.slice() : function (u, min, max) {
      var lo = Math.min.apply(null, [spec.xMin != null ? Math.max(min, spec.xMin) : min].concat(marks));
      var hi = Math.max.apply(null, [max].concat(marks));
      if (spec.xLog) return uPlot.rangeLog(lo, hi, 10, true);
      var pad = (hi - lo) * 0.02 || 1;
      return [marks.length && lo < min ? lo - pad : lo, marks.length && hi > max ? hi + pad : hi];
    } }, y: {}, y2: {} };
    if (spec.xLog) { scales.x.distr = 3; scales.x.log = 10; }
    if (spec.yRange) scales.y = { range: spec.yRange };
    else scales.y = { range: function (u, min, max) { return [Math.min(0, min), max > 0 ? max * 1.05 : 1]; } };
    if (spec.y2Range) scales.y2 = { range: spec.y2Range };
    else scales.y2 = { range: function (u, min, max) { return [Math.min(0, min), max > 0 ? max * 1.05 : 1]; } };
    var opts = {
      width: Math.max(320, el.clientWidth),
      height: 300,
      scales: scales,
      axes: axes,
      legend: { live: true },
      cursor: { drag: { x: true, y: false } },
      series: [{ label: spec.xLabel, value: function (u, v) { return spec.xTime ? (v == null ? '' : utc(v, 1) + ' UTC') : fmt(v); } }].concat(spec.series.map(seriesOpts)),
      hooks: {
        draw: [markerHook(spec.markers), function () { el.setAttribute('data-rendered', 'true'); }],
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
