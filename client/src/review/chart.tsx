/**
 * One ECharts chart in a box: the library's tree-shaken core with only the charts and components
 * the dashboard and the compare page use (canvas rendering: nothing the page's CSP forbids, nothing loaded from
 * elsewhere), sized to its box and resized with it. Once drawn, the box says so (`data-drawn`),
 * which the browser test waits for.
 */
import { BarChart, CustomChart, LineChart, PieChart, RadarChart, ScatterChart } from 'echarts/charts';
import { DataZoomComponent, GridComponent, LegendComponent, MarkAreaComponent, MarkLineComponent, RadarComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';
import { useEffect, useRef } from 'react';

echarts.use([BarChart, CustomChart, LineChart, PieChart, RadarChart, ScatterChart, DataZoomComponent, GridComponent, LegendComponent, MarkAreaComponent, MarkLineComponent, RadarComponent, TooltipComponent, CanvasRenderer]);

export type ChartOption = echarts.EChartsCoreOption;
export type ChartInstance = echarts.ECharts;

/** Text on every chart: the page's font, its grey for axes. */
export const textStyle = { fontFamily: 'system-ui, sans-serif', color: '#3b3f45' };

interface Props {
  option: ChartOption;
  height: number;
  label: string;
  /** The chart once made, to listen to it or update it in place. */
  onReady?: (chart: ChartInstance) => void;
  className?: string;
}

export const Chart = ({ option, height, label, onReady, className }: Props) => {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<ChartInstance | null>(null);

  useEffect(() => {
    const element = box.current!;
    const made = echarts.init(element, null, { renderer: 'canvas' });
    chart.current = made;
    made.on('finished', () => element.setAttribute('data-drawn', 'true'));
    const resize = new ResizeObserver(() => made.resize());
    resize.observe(element);
    onReady?.(made);
    return () => {
      resize.disconnect();
      made.dispose();
      chart.current = null;
    };
    // The chart is made once per box; options arrive through the effect below.
  }, []); // eslint-disable-line react-hooks/exhaustive-deps

  useEffect(() => {
    chart.current?.setOption({ textStyle, animation: false, ...option }, { notMerge: true });
  }, [option]);

  return <div ref={box} className={`chart ${className ?? ''}`} style={{ height }} role="img" aria-label={label} />;
};

/** Text from the log put into a tooltip (ECharts' tooltips are HTML). */
export const escapeHtml = (text: string): string => echarts.format.encodeHTML(text);
export const clipRect = echarts.graphic.clipRectByRect;
