/**
 * The session's timeline (ECharts): a lane per participant (and the room's), each utterance a bar
 * at its real time, with markers for questions, interruptions, instructor actions, system events
 * and fallbacks, impromptu phases as bands behind their lane, and the playhead. Zoom with the
 * slider or the mouse wheel. Clicking a bar (or a question's marker) selects its utterance; the
 * page moves the playhead, and the timeline keeps it in view.
 */
import { useEffect, useMemo, useRef } from 'react';
import type { Report, TimelineItem } from '../../../shared/review/report';
import { Chart, clipRect, escapeHtml, type ChartInstance, type ChartOption } from './chart';
import { clock, lanesOf, ROOM, utterancesOf, type Lane } from './series';

const markerKinds = {
  question: { name: 'Questions', symbol: 'circle', color: '#1f4aa8' },
  interruption: { name: 'Interruptions', symbol: 'triangle', color: '#c4453c' },
  instructor: { name: 'Instructor actions', symbol: 'diamond', color: '#6a4fc4' },
  system: { name: 'System events', symbol: 'rect', color: '#7b838c' },
  fallback: { name: 'Fallbacks', symbol: 'rect', color: '#8c1d18' },
} as const;
type MarkerKind = keyof typeof markerKinds;

/** System events that say something fell back or failed (a vendor's, the store's, a timeout). */
const isFallback = (item: TimelineItem) => /fallback|fail|circuit|timeout|storage|stalled/.test(item.code ?? '');

const markerOf = (item: TimelineItem): MarkerKind | null => {
  if (item.kind === 'utterance') return item.pair === 'question' ? 'question' : null;
  if (item.kind === 'interruption' || item.kind === 'instructor') return item.kind;
  if (item.kind === 'system') return isFallback(item) ? 'fallback' : 'system';
  return null;
};

const laneHeight = 34;
const clip = (text: string, n = 180) => (text.length > n ? `${text.slice(0, n - 1)}…` : text);

interface Props {
  report: Report;
  playheadMs: number;
  selected: string | null;
  onSelect: (utterance: string) => void;
}

/** Where the timeline's pieces are, for the browser test (`window.__review` with ?test=1). */
export interface TimelineHandle {
  barPoint: (utterance: string) => { x: number; y: number } | null;
}

export const Timeline = ({ report, playheadMs, selected, onSelect, handle }: Props & { handle?: (h: TimelineHandle) => void }) => {
  const lanes = useMemo(() => lanesOf(report), [report]);
  const utterances = useMemo(() => utterancesOf(report), [report]);
  const chart = useRef<ChartInstance | null>(null);
  const highlighted = useRef<number>(-1);
  const box = useRef<HTMLDivElement>(null);
  const laneIndex = useMemo(() => new Map(lanes.map((l, i) => [l.id, i])), [lanes]);

  const option = useMemo((): ChartOption => {
    const lane = (item: TimelineItem) => laneIndex.get(item.participant ?? ROOM) ?? 0;
    const markers = new Map<MarkerKind, { value: [number, number]; item: TimelineItem }[]>();
    for (const item of report.timeline) {
      const kind = markerOf(item);
      if (!kind) continue;
      const list = markers.get(kind) ?? [];
      list.push({ value: [item.startMs, lane(item)], item });
      markers.set(kind, list);
    }
    const impromptu = report.timeline.filter((i) => i.kind === 'impromptu');
    const nameOf = (id: string | null | undefined) => lanes.find((l) => l.id === (id ?? ROOM))?.name ?? id ?? 'the room';
    const tooltipOf = (item: TimelineItem): string => {
      const when = item.endMs > item.startMs ? `${clock(item.startMs)}–${clock(item.endMs)}` : clock(item.startMs);
      const who = item.participant ? escapeHtml(nameOf(item.participant)) : 'The room';
      const to = item.addressee ? ` → ${escapeHtml(nameOf(item.addressee))}` : '';
      const what = item.kind === 'interruption' ? ` cut off ${escapeHtml(nameOf(item.of))}` : item.kind === 'utterance' ? to : ` · ${escapeHtml(item.code ?? item.kind)}`;
      return `<b>${who}</b>${what}<br/><span style="color:#50565e">${when}</span>${item.text ? `<br/>${escapeHtml(clip(item.text))}` : ''}`;
    };
    return {
      grid: { left: 118, right: 28, top: 44, bottom: 78 },
      // Everything but the playhead, which explains itself.
      legend: { top: 6, left: 118, itemWidth: 14, itemHeight: 10, textStyle: { fontSize: 12 }, data: ['Utterances', 'Impromptu phases', ...Object.values(markerKinds).map((m) => m.name)] },
      tooltip: { trigger: 'item', confine: true, transitionDuration: 0, extraCssText: 'max-width:360px;white-space:normal;', formatter: (p: { data: { item: TimelineItem } }) => tooltipOf(p.data.item) },
      xAxis: {
        type: 'value',
        min: 0,
        max: Math.max(report.durationMs, 1000),
        name: 'Session time (m:ss)',
        nameLocation: 'middle',
        nameGap: 26,
        axisLabel: { formatter: (ms: number) => clock(ms), hideOverlap: true },
        splitLine: { lineStyle: { color: '#eceef1' } },
      },
      yAxis: {
        type: 'category',
        data: lanes.map((l) => l.name),
        inverse: true,
        axisTick: { show: false },
        axisLine: { show: false },
        axisLabel: { width: 104, overflow: 'truncate', fontWeight: 600, color: '#1d1f23' },
        splitArea: { show: true, areaStyle: { color: ['#ffffff', '#f6f7f9'] } },
      },
      dataZoom: [
        { type: 'inside', xAxisIndex: 0, filterMode: 'weakFilter' },
        { type: 'slider', xAxisIndex: 0, filterMode: 'weakFilter', height: 18, bottom: 8, labelFormatter: (ms: number) => clock(ms), brushSelect: false },
      ],
      series: [
        {
          id: 'impromptu',
          name: 'Impromptu phases',
          type: 'custom',
          encode: { x: [1, 2], y: 0 },
          itemStyle: { color: 'rgba(217, 130, 43, 0.22)' },
          renderItem: band,
          data: impromptu.map((item) => ({ value: [lane(item), item.startMs, Math.max(item.endMs, item.startMs + 500)], item })),
          z: 1,
        },
        {
          id: 'utterances',
          name: 'Utterances',
          type: 'custom',
          encode: { x: [1, 2], y: 0 },
          // The legend's grey; each bar has its speaker's colour.
          itemStyle: { color: '#7b838c' },
          renderItem: bar,
          data: utterances.map((item) => ({ value: [lane(item), item.startMs, item.endMs], item, itemStyle: { color: lanes[lane(item)]!.color } })),
          z: 2,
        },
        ...Object.entries(markerKinds).map(([kind, look]) => ({
          id: kind,
          name: look.name,
          type: 'scatter',
          symbol: look.symbol,
          symbolSize: kind === 'question' ? 13 : 11,
          symbolOffset: [0, -laneHeight / 2 + 4],
          itemStyle: { color: look.color, borderColor: '#fff', borderWidth: 1 },
          data: markers.get(kind as MarkerKind) ?? [],
          z: 3,
        })),
        {
          id: 'playhead',
          name: 'Playhead',
          type: 'line',
          data: [],
          silent: true,
          markLine: playhead(0),
        },
      ],
    };
  }, [report, lanes, laneIndex]);

  const ready = (made: ChartInstance) => {
    chart.current = made;
    made.on('click', (params) => {
      const item = (params.data as { item?: TimelineItem } | null)?.item;
      if (item?.kind === 'utterance' && item.utterance) onSelect(item.utterance);
    });
    made.on('finished', () => {
      const series = (made.getOption() as { series: { id: string; data: unknown[] }[] }).series;
      const count = (id: string) => series.find((s) => s.id === id)?.data.length ?? 0;
      box.current?.setAttribute('data-bars', String(count('utterances')));
      box.current?.setAttribute('data-markers', String(Object.keys(markerKinds).reduce((n, kind) => n + count(kind), 0)));
    });
    handle?.({
      barPoint: (utterance) => {
        const u = utterances.find((x) => x.utterance === utterance);
        if (!u) return null;
        const [x, y] = made.convertToPixel({ gridIndex: 0 }, [(u.startMs + u.endMs) / 2, laneIndex.get(u.participant ?? ROOM) ?? 0]) as number[];
        const rect = made.getDom().getBoundingClientRect();
        return { x: rect.left + x!, y: rect.top + y! };
      },
    });
  };

  // The playhead and the selected bar follow the page's state without redrawing the rest.
  useEffect(() => {
    const made = chart.current;
    if (!made || made.isDisposed()) return;
    made.setOption({ series: [{ id: 'playhead', markLine: playhead(playheadMs) }] });
    const index = utterances.findIndex((u) => u.utterance === selected);
    if (highlighted.current >= 0 && highlighted.current !== index) made.dispatchAction({ type: 'downplay', seriesId: 'utterances', dataIndex: highlighted.current });
    if (index >= 0) made.dispatchAction({ type: 'highlight', seriesId: 'utterances', dataIndex: index });
    highlighted.current = index;
    keepInView(made, playheadMs);
  }, [playheadMs, selected, utterances]);

  return (
    <div ref={box} className="timeline" data-playhead={Math.round(playheadMs)} data-lanes={lanes.length}>
      <Chart option={option} height={44 + 78 + laneHeight * lanes.length + 8} label={`Timeline of the session: ${lanes.map((l: Lane) => l.name).join(', ')}`} onReady={ready} />
    </div>
  );
};

const playhead = (ms: number) => ({
  silent: true,
  symbol: 'none',
  animation: false,
  lineStyle: { color: '#1d1f23', width: 1.5, type: 'solid' },
  label: { formatter: () => clock(ms), position: 'start', color: '#1d1f23', backgroundColor: '#fff', padding: [1, 4], borderRadius: 3 },
  data: [{ xAxis: ms }],
});

/** Pans the zoomed window, when it is zoomed, to bring `ms` into it. */
const keepInView = (chart: ChartInstance, ms: number) => {
  const zoom = (chart.getOption() as { dataZoom?: { startValue?: number; endValue?: number }[] }).dataZoom?.[0];
  if (zoom?.startValue === undefined || zoom.endValue === undefined) return;
  const { startValue: from, endValue: to } = zoom;
  if (ms >= from && ms <= to) return;
  const span = to - from;
  chart.dispatchAction({ type: 'dataZoom', startValue: Math.max(0, ms - span / 2), endValue: Math.max(0, ms - span / 2) + span });
};

type Api = { value: (i: number) => number; coord: (v: number[]) => number[]; size: (v: number[]) => number[]; style: () => Record<string, unknown> };
type Params = { coordSys: { x: number; y: number; width: number; height: number } };

/** An utterance: a bar on its lane from its start to its end (at least 2 px, so a short one can be clicked). */
const bar = (params: Params, api: Api) => {
  const [x0, y] = api.coord([api.value(1), api.value(0)]) as [number, number];
  const [x1] = api.coord([api.value(2), api.value(0)]) as [number, number];
  const height = api.size([0, 1])[1]! * 0.5;
  const shape = clipRect({ x: x0, y: y - height / 2, width: Math.max(2, x1 - x0), height }, params.coordSys);
  return shape && { type: 'rect', shape: { ...shape, r: 2 }, style: api.style(), emphasis: { style: { stroke: '#1d1f23', lineWidth: 2 } } };
};

/** An impromptu phase: a band over its lane's whole height. */
const band = (params: Params, api: Api) => {
  const [x0, y] = api.coord([api.value(1), api.value(0)]) as [number, number];
  const [x1] = api.coord([api.value(2), api.value(0)]) as [number, number];
  const height = api.size([0, 1])[1]!;
  const shape = clipRect({ x: x0, y: y - height / 2, width: Math.max(2, x1 - x0), height }, params.coordSys);
  return shape && { type: 'rect', shape, style: api.style() };
};
