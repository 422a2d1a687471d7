/** A rendered chart with what the HTML page needs around it. */
export interface Chart {
  /** The svg's data-chart value. */
  name: string;
  svg: string;
  /** Number of `[data-series]` groups in the svg (what a browser test expects to find). */
  seriesCount: number;
  /** One or two sentences on what to look for. */
  caption: string;
}
