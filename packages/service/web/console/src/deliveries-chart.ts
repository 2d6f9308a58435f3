import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

/** One minute of the overview's chart (epoch ms UTC) with deliveries by decision. */
export interface MinuteCounts {
  readonly minuteMs: number;
  readonly new: number;
  readonly duplicate: number;
  readonly inProgress: number;
  readonly rejected: number;
}

/** Draws deliveries per minute by decision (uPlot) into `target`, replacing what was there; returns the plot. */
export function drawDeliveriesChart(target: HTMLElement, minutes: readonly MinuteCounts[]): uPlot {
  target.replaceChildren();
  const x = minutes.map((m) => m.minuteMs / 1000);
  const series = (label: string, stroke: string) => ({ label, stroke, width: 2, points: { show: false } });
  const data: uPlot.AlignedData = [
    x,
    minutes.map((m) => m.new),
    minutes.map((m) => m.duplicate),
    minutes.map((m) => m.inProgress),
    minutes.map((m) => m.rejected),
  ];
  return new uPlot(
    {
      width: Math.max(320, target.clientWidth || 800),
      height: 220,
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
      scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
      axes: [{ stroke: '#6a7386' }, { stroke: '#6a7386', label: 'deliveries / min' }],
      series: [
        { label: 'minute (UTC)' },
        series('new', '#1f8a4c'),
        series('duplicate', '#3451d1'),
        series('in progress', '#b7791f'),
        series('rejected', '#c53030'),
      ],
    },
    data,
    target,
  );
}
