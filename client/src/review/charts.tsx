/**
 * The dashboard's analytics, each an ECharts chart in a card: talk share, turns, speaking time
 * accumulated over the session, response latency (median and 90th percentile) and pace in windows
 * with the comfortable 140-160 words per minute marked. A participant keeps their colour on every
 * chart and on the timeline.
 */
import { useMemo, type ReactNode } from 'react';
import type { Report } from '../../../shared/review/report';
import { Chart, type ChartOption } from './chart';
import { clock, cumulativeSpeaking, lanesOf, paceOf } from './series';

/** The comfortable pace for presenting and interviewing, in words per minute (issue 17). */
export const comfortablePace = [140, 160] as const;

const axisName = { nameLocation: 'middle', nameTextStyle: { color: '#50565e' } } as const;
const split = { lineStyle: { color: '#eceef1' } };

export const ChartCard = ({ title, note, children, id }: { title: string; note?: string; children: ReactNode; id: string }) => (
  <section className="card chart-card" data-chart={id}>
    <h3>{title}</h3>
    {note && <p className="note">{note}</p>}
    {children}
  </section>
);

type Colour = (participant: string) => string;

const talkShareOf = (report: Report, color: Colour): ChartOption => ({
  tooltip: { trigger: 'item', formatter: (p: { name: string; value: number; percent: number }) => `${p.name}: ${Math.round(p.value)} s (${p.percent}%)` },
  legend: { type: 'scroll', orient: 'vertical', right: 4, top: 'middle', itemWidth: 12, itemHeight: 10, textStyle: { fontSize: 12 } },
  series: [
    {
      type: 'pie',
      radius: ['38%', '64%'],
      center: ['38%', '50%'],
      percentPrecision: 0,
      avoidLabelOverlap: true,
      label: { formatter: '{d}%', fontSize: 12 },
      labelLine: { length: 6, length2: 6 },
      data: report.participants.filter((p) => p.speakingMs > 0).map((p) => ({ name: p.name, value: p.speakingMs / 1000, itemStyle: { color: color(p.id) } })),
    },
  ],
});

const turnsOf = (report: Report, color: Colour): ChartOption => ({
  grid: { left: 110, right: 36, top: 10, bottom: 40 },
  tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } },
  xAxis: { type: 'value', name: 'Turns', ...axisName, nameGap: 24, minInterval: 1, splitLine: split },
  yAxis: { type: 'category', inverse: true, data: report.participants.map((p) => p.name), axisLabel: { width: 100, overflow: 'truncate' }, axisTick: { show: false } },
  series: [{ type: 'bar', name: 'Turns', barMaxWidth: 18, label: { show: true, position: 'right' }, data: report.participants.map((p) => ({ value: p.turns, itemStyle: { color: color(p.id) } })) }],
});

const cumulativeOf = (report: Report, color: Colour): ChartOption => {
  const lines = cumulativeSpeaking(report);
  return {
    grid: { left: 56, right: 20, top: 36, bottom: 44 },
    legend: { type: 'scroll', top: 4, itemWidth: 14, itemHeight: 10, textStyle: { fontSize: 12 } },
    tooltip: { trigger: 'axis', valueFormatter: (s: number) => `${Math.round(s)} s`, axisPointer: { label: { formatter: (p: { value: number }) => clock(p.value) } } },
    xAxis: { type: 'value', min: 0, max: Math.max(report.durationMs, 1000), name: 'Session time (m:ss)', ...axisName, nameGap: 26, axisLabel: { formatter: (ms: number) => clock(ms), hideOverlap: true }, splitLine: split },
    yAxis: { type: 'value', name: 'Speaking time (s)', ...axisName, nameGap: 38, splitLine: split },
    series: report.participants.map((p) => ({ type: 'line', name: p.name, showSymbol: false, color: color(p.id), lineStyle: { width: 2 }, data: lines.get(p.id) ?? [] })),
  };
};

const latencyOf = (report: Report): ChartOption => {
  const seconds = (ms: number | null) => (ms === null ? null : Math.round(ms / 100) / 10);
  const answered = report.participants.filter((p) => p.responseLatencyMs.samples > 0);
  return {
    grid: { left: 48, right: 16, top: 34, bottom: 48 },
    legend: { top: 4, itemWidth: 14, itemHeight: 10, textStyle: { fontSize: 12 } },
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' }, valueFormatter: (s: number | null) => (s === null ? '–' : `${s} s`) },
    // A name over two lines, so five or six fit side by side.
    xAxis: { type: 'category', data: answered.map((p) => p.name), axisLabel: { interval: 0, formatter: (name: string) => name.replace(' ', '\n'), lineHeight: 13 }, axisTick: { show: false } },
    yAxis: { type: 'value', name: 'Seconds', ...axisName, nameGap: 32, splitLine: split },
    series: [
      { type: 'bar', name: 'Median', barMaxWidth: 16, color: '#2857c5', data: answered.map((p) => seconds(p.responseLatencyMs.median)) },
      { type: 'bar', name: '90th percentile', barMaxWidth: 16, color: '#9bb3e6', data: answered.map((p) => seconds(p.responseLatencyMs.p90)) },
    ],
  };
};

/** The comfortable band, drawn once (with the first line). */
const comfortableBand = {
  silent: true,
  itemStyle: { color: 'rgba(46, 158, 106, 0.12)' },
  label: { show: true, position: 'right', formatter: `comfortable\n${comfortablePace[0]}–${comfortablePace[1]}`, color: '#1b7a32', fontSize: 11, lineHeight: 13 },
  data: [[{ yAxis: comfortablePace[0] }, { yAxis: comfortablePace[1] }]],
};

const paceChartOf = (report: Report, color: Colour): ChartOption => {
  const { windowMs, starts, lines } = paceOf(report);
  return {
    grid: { left: 56, right: 84, top: 36, bottom: 44 },
    legend: { type: 'scroll', top: 4, itemWidth: 14, itemHeight: 10, textStyle: { fontSize: 12 } },
    tooltip: { trigger: 'axis', valueFormatter: (v: number | null) => (v === null ? '–' : `${Math.round(v)} wpm`) },
    xAxis: {
      type: 'category',
      data: starts.map((ms) => clock(ms)),
      name: `Window start (m:ss; ${Math.round(windowMs / 1000)} s windows)`,
      ...axisName,
      nameGap: 26,
      axisLabel: { hideOverlap: true },
      boundaryGap: false,
    },
    yAxis: { type: 'value', name: 'Words per minute', ...axisName, nameGap: 38, splitLine: split },
    series: report.participants
      .filter((p) => p.turns > 0)
      .map((p, i) => ({ type: 'line', name: p.name, color: color(p.id), connectNulls: false, symbolSize: 5, data: lines.get(p.id) ?? [], ...(i === 0 ? { markArea: comfortableBand } : {}) })),
  };
};

/** Every chart's option, from the report alone; a participant's colour is their timeline lane's. */
export const chartOptions = (report: Report) => {
  const lanes = lanesOf(report);
  const color: Colour = (id) => lanes.find((l) => l.id === id)?.color ?? '#7b838c';
  return { talkShare: talkShareOf(report, color), turns: turnsOf(report, color), cumulative: cumulativeOf(report, color), latency: latencyOf(report), pace: paceChartOf(report, color) };
};

export const Analytics = ({ report }: { report: Report }) => {
  const options = useMemo(() => chartOptions(report), [report]);
  const rows = Math.max(2, report.participants.length);
  return (
    <>
      <ChartCard id="talk-share" title="Talk share" note="Of everyone's speaking time">
        <Chart option={options.talkShare} height={220} label="Talk share per participant" />
      </ChartCard>
      <ChartCard id="turns" title="Turns" note="Utterances per participant">
        <Chart option={options.turns} height={Math.max(220, 50 + rows * 30)} label="Turns per participant" />
      </ChartCard>
      <ChartCard id="latency" title="Response latency" note={`From the end of the previous turn to the first word${report.pace === 'instant' ? ' (simulated time: instant pace)' : ''}`}>
        <Chart option={options.latency} height={220} label="Response latency per participant, median and 90th percentile" />
      </ChartCard>
    </>
  );
};

export const TimeCharts = ({ report }: { report: Report }) => {
  const options = useMemo(() => chartOptions(report), [report]);
  return (
    <>
      <ChartCard id="cumulative" title="Speaking time over the session">
        <Chart option={options.cumulative} height={250} label="Cumulative speaking time per participant over the session" />
      </ChartCard>
      <ChartCard id="pace" title="Pace over time" note={`Words per minute while speaking${report.pace === 'instant' ? ' (simulated time: instant pace)' : ''}`}>
        <Chart option={options.pace} height={250} label="Words per minute per participant over the session" />
      </ChartCard>
    </>
  );
};
