"""Plotly figures for the app: evaluation charts (per-config metric bars, category × configuration heatmap,
quality vs latency, reranker lift, failure labels) and the live views (overlap of retrieved ids, latency per
stage). Pure functions of DataFrames / results; no Streamlit."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go

from rag.results import AnswerResult
from webapp.eval_runs import (
    CHART_METRICS,
    FAILURE_LABELS,
    FALLBACK_SUFFIX,
    OK_LABEL,
    metric_label,
    metric_unit,
)
from webapp.tables import STAGE_ORDER

TEMPLATE = "plotly_white"
PALETTE = px.colors.qualitative.Safe
FAILURE_COLOURS = {
    OK_LABEL: "#3B8F5A",
    "retrieval_miss": "#C0392B",
    "ranked_low": "#E67E22",
    "generation_miss": "#8E44AD",
    "wrong_abstention": "#7F8C8D",
    "false_answer": "#D4AC0D",
}


def empty_figure(message: str, height: int = 240) -> go.Figure:
    """A blank figure that says why there is nothing to draw."""
    figure = go.Figure()
    figure.add_annotation(text=message, x=0.5, y=0.5, xref="paper", yref="paper", showarrow=False)
    figure.update_xaxes(visible=False)
    figure.update_yaxes(visible=False)
    figure.update_layout(template=TEMPLATE, height=height, margin={"l": 10, "r": 10, "t": 30, "b": 10})
    return figure


def chart_metrics(metrics: pd.DataFrame, wanted: Sequence[str] = CHART_METRICS) -> list[str]:
    """The wanted metrics present in a metrics_frame (hit@5 stands for whatever hit@k the run uses)."""
    present = list(dict.fromkeys(metrics["metric"])) if not metrics.empty else []
    hit = next((m for m in present if m.startswith("hit@")), "hit@5")
    chosen = [hit if m == "hit@5" else m for m in wanted]
    return [m for m in chosen if m in present]


def metric_bars(metrics: pd.DataFrame, wanted: Sequence[str] = CHART_METRICS) -> go.Figure:
    """One panel per metric (hit@k, MRR, abstention accuracy, false-abstention rate, keyword recall, judge
    score), one bar per configuration; each panel has its own y axis (the judge score is not a rate)."""
    chosen = chart_metrics(metrics, wanted)
    if not chosen:
        return empty_figure("No metrics to chart in the chosen runs")
    data = metrics[metrics["metric"].isin(chosen)].copy()

    def title(metric: str) -> str:
        unit = metric_unit(metric)
        return f"{metric_label(metric)} ({unit})" if unit else metric_label(metric)

    data["metric name"] = data["metric"].map(title)
    order = [title(m) for m in chosen]
    labels = list(dict.fromkeys(data["label"]))
    columns = min(3, len(order))
    figure = px.bar(
        data,
        x="label",
        y="value",
        color="label",
        facet_col="metric name",
        facet_col_wrap=columns,
        category_orders={"metric name": order, "label": labels},
        text_auto=".2f",
        color_discrete_sequence=PALETTE,
        template=TEMPLATE,
        facet_row_spacing=0.16,
        facet_col_spacing=0.06,
    )
    figure.for_each_annotation(lambda a: a.update(text=a.text.split("=", 1)[-1]))
    figure.update_yaxes(matches=None, showticklabels=True, title_text="", rangemode="tozero")
    figure.update_xaxes(title_text="", showticklabels=False)
    rows = (len(order) + columns - 1) // columns
    figure.update_layout(
        height=260 * rows + 80,
        legend_title_text="configuration",
        margin={"l": 10, "r": 10, "t": 40, "b": 10},
        bargap=0.25,
    )
    figure.update_traces(textposition="outside", cliponaxis=False)
    mark_fallback_traces(figure)
    return figure


def mark_fallback_traces(figure: go.Figure) -> None:
    """Hatch the bars of configurations that fell back (their label ends with `(fallback)`)."""
    for trace in figure.data:
        if str(getattr(trace, "name", "") or "").endswith(FALLBACK_SUFFIX):
            trace.update(marker_pattern_shape="/", marker_pattern_fgcolor="#555", opacity=0.75)


def category_heatmap(categories: pd.DataFrame, metric: str) -> go.Figure:
    """Category (rows) × configuration (columns), coloured by the metric, each cell labelled."""
    if categories.empty:
        return empty_figure(f"No per-category values of {metric_label(metric)}")
    labels = list(dict.fromkeys(categories["label"]))
    names = sorted(dict.fromkeys(categories["category"]))
    grid = categories.pivot_table(index="category", columns="label", values="value", aggfunc="first")
    grid = grid.reindex(index=names, columns=labels)
    lower_is_better = metric in ("false_abstention_rate",) or metric.startswith("latency")
    figure = go.Figure(
        go.Heatmap(
            z=grid.to_numpy(dtype=float),
            x=labels,
            y=names,
            colorscale="RdYlGn_r" if lower_is_better else "RdYlGn",
            texttemplate="%{z:.2f}",
            hovertemplate="category %{y}<br>%{x}<br>" + metric_label(metric) + " %{z:.3f}<extra></extra>",
            colorbar={"title": {"text": metric_label(metric) + (f"<br>({metric_unit(metric)})"
                                                                 if metric_unit(metric) else "")}},
            xgap=2,
            ygap=2,
        )
    )
    figure.update_layout(
        template=TEMPLATE,
        height=max(260, 34 * len(names) + 120 + 7 * max((len(label) for label in labels), default=0)),
        margin={"l": 10, "r": 10, "t": 40, "b": 10},
        title={"text": f"{metric_label(metric)} by category", "x": 0.0},
        xaxis={"side": "top", "title": "", "tickangle": -35 if len(labels) > 3 else 0, "automargin": True},
        yaxis={"autorange": "reversed", "title": ""},
    )
    return figure


def _per_question(wide: pd.DataFrame, name: str) -> pd.Series:
    """Mean tokens per question: `<name>_mean` when reported, else the total divided by `n`."""
    zero = pd.Series(0.0, index=wide.index)
    if f"{name}_mean" in wide.columns:
        return wide[f"{name}_mean"].fillna(0.0)
    if name not in wide.columns:
        return zero
    total = wide[name].fillna(0.0)
    if "n" in wide.columns:
        return (total / wide["n"].where(wide["n"] > 0)).fillna(total)
    return total


def scatter_frame(metrics: pd.DataFrame, quality: str) -> pd.DataFrame:
    """label, quality, latency p50 and tokens (in + out per question) for the quality/latency chart."""
    if metrics.empty:
        return pd.DataFrame(columns=["label", "quality", "latency_ms_p50", "tokens"])
    wide = metrics.pivot_table(index="label", columns="metric", values="value", aggfunc="first", sort=False)
    if quality not in wide.columns or "latency_ms_p50" not in wide.columns:
        return pd.DataFrame(columns=["label", "quality", "latency_ms_p50", "tokens"])
    tokens = _per_question(wide, "tokens_in") + _per_question(wide, "tokens_out")
    frame = pd.DataFrame(
        {
            "label": wide.index,
            "quality": wide[quality].to_numpy(),
            "latency_ms_p50": wide["latency_ms_p50"].to_numpy(),
            "tokens": tokens.to_numpy(),
        }
    )
    return frame.dropna(subset=["quality", "latency_ms_p50"]).reset_index(drop=True)


SYMBOLS = ("circle", "square", "diamond", "triangle-up", "cross", "x", "star", "hexagon", "triangle-down", "pentagon")


def quality_latency_scatter(metrics: pd.DataFrame, quality: str = "hit@5") -> go.Figure:
    """Quality (y) against median latency (x), one marked point per configuration named in the legend (text
    labels next to points overlap when configurations score alike). Points are sized by tokens per question
    only when some configuration used tokens (retrieval-only runs use none)."""
    if quality == "hit@5" and not metrics.empty:
        quality = next((m for m in dict.fromkeys(metrics["metric"]) if m.startswith("hit@")), quality)
    data = scatter_frame(metrics, quality)
    if data.empty:
        return empty_figure(f"Need {metric_label(quality)} and latency p50 to compare quality with latency")
    sized = bool((data["tokens"] > 0).any())
    unit = metric_unit(quality)
    y_title = metric_label(quality) + (f" ({unit})" if unit else "")
    figure = go.Figure()
    biggest = float(data["tokens"].max()) if sized else 0.0
    for number, row in enumerate(data.itertuples(index=False)):
        size = 12 + (30 * float(row.tokens) / biggest if sized and biggest > 0 else 0)
        figure.add_trace(
            go.Scatter(
                x=[row.latency_ms_p50],
                y=[row.quality],
                mode="markers",
                name=str(row.label),
                marker={"size": size, "symbol": SYMBOLS[number % len(SYMBOLS)],
                        "color": PALETTE[number % len(PALETTE)], "line": {"width": 1, "color": "#333"},
                        "opacity": 0.6 if str(row.label).endswith(FALLBACK_SUFFIX) else 0.9},
                hovertemplate=(f"{row.label}<br>latency p50 %{{x:,.0f}} ms<br>{metric_label(quality)} %{{y:.3f}}"
                               f"<br>tokens per question {row.tokens:,.0f}<extra></extra>"),
            )
        )
    how = "point size: tokens per question" if sized else "no LLM tokens used: equal points"
    figure.update_layout(
        template=TEMPLATE,
        height=420,
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        title={"text": f"{metric_label(quality)} vs median latency ({how})", "x": 0.0},
        xaxis_title="latency p50 (ms per question)",
        yaxis_title=y_title,
        legend={"title": {"text": "configuration"}, "font": {"size": 11}},
    )
    return figure


def reranker_lift_bars(metrics: pd.DataFrame) -> go.Figure:
    """Reranker lift per configuration: the mean number of rank positions the reranker moved the first relevant
    chunk up (negative: down); green when positive."""
    data = metrics[metrics["metric"] == "reranker_lift"] if not metrics.empty else metrics
    if data is None or data.empty:
        return empty_figure("No configuration in these runs reports a reranker lift")
    colours = ["#3B8F5A" if value >= 0 else "#C0392B" for value in data["value"]]
    figure = go.Figure(
        go.Bar(
            x=list(data["label"]),
            y=list(data["value"]),
            marker_color=colours,
            text=[f"{value:+.2f} ranks" for value in data["value"]],
            textposition="outside",
            cliponaxis=False,
            hovertemplate="%{x}<br>first relevant chunk moved up %{y:.3f} rank positions on average<extra></extra>",
        )
    )
    figure.add_hline(y=0, line_width=1, line_color="#555")
    figure.update_layout(
        template=TEMPLATE,
        height=340,
        margin={"l": 10, "r": 10, "t": 60, "b": 10},
        title={"text": "Reranker lift: mean rank positions the first relevant chunk moved up", "x": 0.0},
        yaxis_title="rank positions gained",
        xaxis={"automargin": True},
    )
    return figure


def failure_bars(questions: pd.DataFrame) -> go.Figure:
    """Stacked bars: how many questions of each configuration got each failure label."""
    if questions.empty:
        return empty_figure("No per-question records in the chosen runs")
    counts = questions.groupby(["label", "failure"], sort=False).size().reset_index(name="count")
    order = [OK_LABEL, *FAILURE_LABELS, *sorted(set(counts["failure"]) - {OK_LABEL, *FAILURE_LABELS})]
    figure = px.bar(
        counts,
        x="label",
        y="count",
        color="failure",
        category_orders={"failure": order, "label": list(dict.fromkeys(questions["label"]))},
        color_discrete_map=FAILURE_COLOURS,
        template=TEMPLATE,
    )
    figure.update_layout(
        height=340,
        barmode="stack",
        margin={"l": 10, "r": 10, "t": 40, "b": 10},
        title={"text": "Failure labels per configuration (questions)", "x": 0.0},
        xaxis_title="",
        yaxis_title="questions",
        xaxis={"automargin": True, "tickangle": -35 if len(set(counts["label"])) > 4 else 0},
    )
    return figure


# ---------------------------------------------------------------------- live (home page) figures
def overlap_figure(overlap: pd.DataFrame, configs: Sequence[str], limit: int = 30) -> go.Figure:
    """Structural id (rows) × configuration (columns), each cell the rank it was retrieved at (blank: not found).

    Rows found by only some configurations are marked with ◆ in their label.
    """
    if overlap.empty or not configs:
        return empty_figure("No retrieved chunks to compare")
    data = overlap.head(limit)
    labels = [("◆ " if some else "") + sid for sid, some in zip(data["structural id"], data["only some"], strict=True)]
    z = data[list(configs)].astype("float64").to_numpy()
    text = [["" if pd.isna(value) else f"{int(value)}" for value in row] for row in z]
    figure = go.Figure(
        go.Heatmap(
            z=z,
            x=list(configs),
            y=labels,
            text=text,
            texttemplate="%{text}",
            colorscale="Blues_r",
            zmin=1,
            hovertemplate="%{y}<br>%{x}: rank %{z}<extra></extra>",
            colorbar={"title": {"text": "rank"}},
            xgap=2,
            ygap=2,
        )
    )
    figure.update_layout(
        template=TEMPLATE,
        height=max(220, 26 * len(labels) + 90),
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        xaxis={"side": "top"},
        yaxis={"autorange": "reversed", "automargin": True},
    )
    return figure


def latency_breakdown(results: Sequence[AnswerResult]) -> go.Figure:
    """Stacked horizontal bars: milliseconds per pipeline stage for each configuration."""
    rows = []
    for result in results:
        for stage, ms in result.timings_ms.items():
            if stage != "total":
                rows.append({"config": result.config, "stage": stage, "ms": ms})
    if not rows:
        return empty_figure("No timings")
    data = pd.DataFrame(rows)
    stages = [s for s in STAGE_ORDER if s in set(data["stage"])] + sorted(set(data["stage"]) - set(STAGE_ORDER))
    figure = px.bar(
        data,
        y="config",
        x="ms",
        color="stage",
        orientation="h",
        category_orders={"stage": stages, "config": [r.config for r in results]},
        color_discrete_sequence=px.colors.qualitative.Pastel,
        template=TEMPLATE,
    )
    figure.update_layout(
        height=max(180, 48 * len(results) + 90),
        barmode="stack",
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        xaxis_title="milliseconds",
        yaxis_title="",
        legend={"orientation": "h", "y": -0.3},
    )
    return figure
