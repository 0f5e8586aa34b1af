"""Plotly figures for the app: evaluation charts (per-config metric bars, category × configuration heatmap,
quality vs latency, reranker lift, failure labels) and the live views (overlap of retrieved ids, latency per
stage). Pure functions of DataFrames / results; no Streamlit."""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from rag.evaluate.metrics import metric_label
from rag.evaluate.saved_runs import OK_LABEL, failure_order
from rag.results import AnswerResult
from webapp.eval_frames import CHART_METRICS, FALLBACK_SUFFIX, metric_unit
from webapp.tables import STAGE_ORDER

TEMPLATE = "plotly_white"
# Ten presets, ten colours (Plotly's D3 order); other configurations draw from twelve paler ones by name.
PRESET_ORDER: tuple[str, ...] = ("C0", "C1", "C2", "C3", "C4", "C5", "E2", "E3", "E4", "full")
PALETTE = px.colors.qualitative.D3
EXTRA_PALETTE = px.colors.qualitative.Set3
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


def config_colour(config: str) -> str:
    """The one colour of a configuration in every chart, whatever else is shown: presets have fixed colours,
    any other name (an ablation, a custom configuration) a colour chosen by its name."""
    base = config.removesuffix(FALLBACK_SUFFIX).rsplit(" / ", 1)[-1]
    if base in PRESET_ORDER:
        return PALETTE[PRESET_ORDER.index(base) % len(PALETTE)]
    return EXTRA_PALETTE[zlib.crc32(base.encode("utf-8")) % len(EXTRA_PALETTE)]


def metric_bars(metrics: pd.DataFrame, wanted: Sequence[str] = CHART_METRICS, metric: str | None = None) -> go.Figure:
    """Bars of each configuration, one colour per configuration (`config_colour`), configurations that fell back
    hatched. Without `metric`: one panel per metric (hit@k, MRR, abstention accuracy, false-abstention rate,
    keyword recall, judge score), each with its own y axis. With `metric` (several runs): one panel per run, so
    each panel holds one run's configurations, never every run's bars in one row."""
    chosen = [metric] if metric else chart_metrics(metrics, wanted)
    data = metrics[metrics["metric"].isin(chosen)] if not metrics.empty else metrics
    if data.empty:
        return empty_figure("No metrics to chart in the chosen runs")

    def title(name: str) -> str:
        unit = metric_unit(name)
        return f"{metric_label(name)} ({unit})" if unit else metric_label(name)

    if metric:
        panels = [(str(run), data[data["run"] == run]) for run in dict.fromkeys(data["run"])]
    else:
        panels = [(title(name), data[data["metric"] == name]) for name in chosen if (data["metric"] == name).any()]
    columns = min(3, len(panels))
    rows = (len(panels) + columns - 1) // columns
    figure = make_subplots(rows=rows, cols=columns, subplot_titles=[name for name, _ in panels],
                           vertical_spacing=min(0.5 / rows, 0.3) if rows > 1 else 0.1, horizontal_spacing=0.07)
    shown: set[str] = set()
    for number, (_, panel) in enumerate(panels):
        row, column = number // columns + 1, number % columns + 1
        for item in panel.itertuples(index=False):
            config = str(item.config)
            # several runs: the legend names configurations once (their colour), the panels name the runs
            label = config + (FALLBACK_SUFFIX if str(item.label).endswith(FALLBACK_SUFFIX) else "") if metric \
                else str(item.label)
            figure.add_trace(
                go.Bar(x=[config], y=[item.value], name=label, legendgroup=label, showlegend=label not in shown,
                       marker_color=config_colour(config), text=[f"{item.value:.2f}"], textposition="outside",
                       cliponaxis=False, hovertemplate=f"{label}<br>%{{y:.3f}}<extra></extra>"),
                row=row, col=column,
            )
            shown.add(label)
    figure.update_xaxes(showticklabels=bool(metric), tickangle=-35 if metric else 0, automargin=True)
    figure.update_yaxes(rangemode="tozero", automargin=True)
    figure.update_layout(
        template=TEMPLATE,
        height=(300 if metric else 260) * rows + 80,
        legend_title_text="configuration",
        margin={"l": 10, "r": 10, "t": 60 if metric else 40, "b": 10},
        bargap=0.2,
        title={"text": title(metric), "x": 0.0} if metric else None,
    )
    mark_fallback_traces(figure)
    return figure


def mark_fallback_traces(figure: go.Figure) -> None:
    """Hatch the bars of configurations that fell back (their label ends with `(fallback)`)."""
    for trace in figure.data:
        if str(getattr(trace, "name", "") or "").endswith(FALLBACK_SUFFIX):
            trace.update(marker_pattern_shape="/", marker_pattern_fgcolor="#555", opacity=0.75)


def category_heatmap(categories: pd.DataFrame, metric: str, by: str = "category") -> go.Figure:
    """Category (rows; or whatever `by` names, such as the API a question is about) × configuration (columns),
    coloured by the metric, each cell labelled."""
    if categories.empty:
        return empty_figure(f"No per-{by} values of {metric_label(metric)}")
    labels = list(dict.fromkeys(categories["label"]))
    names = sorted(dict.fromkeys(categories["category"]))
    grid = categories.pivot_table(index="category", columns="label", values="value", aggfunc="first")
    grid = grid.reindex(index=names, columns=labels)
    lower_is_better = metric in ("false_abstention_rate", "another_api_first") or metric.startswith("latency")
    figure = go.Figure(
        go.Heatmap(
            z=grid.to_numpy(dtype=float),
            x=labels,
            y=names,
            colorscale="RdYlGn_r" if lower_is_better else "RdYlGn",
            texttemplate="%{z:.2f}",
            hovertemplate=by + " %{y}<br>%{x}<br>" + metric_label(metric) + " %{z:.3f}<extra></extra>",
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
        title={"text": f"{metric_label(metric)} by {by}", "x": 0.0},
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
        return pd.DataFrame(columns=["label", "quality", "latency_ms_p50", "tokens", "config", "run"])
    wide = metrics.pivot_table(index="label", columns="metric", values="value", aggfunc="first", sort=False)
    if quality not in wide.columns or "latency_ms_p50" not in wide.columns:
        return pd.DataFrame(columns=["label", "quality", "latency_ms_p50", "tokens", "config", "run"])
    owners = metrics.drop_duplicates("label").set_index("label")
    tokens = _per_question(wide, "tokens_in") + _per_question(wide, "tokens_out")
    frame = pd.DataFrame(
        {
            "label": wide.index,
            "quality": wide[quality].to_numpy(),
            "latency_ms_p50": wide["latency_ms_p50"].to_numpy(),
            "tokens": tokens.to_numpy(),
            "config": [str(owners.at[label, "config"]) if "config" in owners else str(label) for label in wide.index],
            "run": [str(owners.at[label, "run"]) if "run" in owners else "" for label in wide.index],
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
    runs = list(dict.fromkeys(data["run"]))
    several = len(runs) > 1
    shown: set[str] = set()
    for number, row in enumerate(data.itertuples(index=False)):
        # one colour per configuration; several runs: one symbol per run (the legend names each configuration
        # once), else one symbol per configuration
        symbol = SYMBOLS[(runs.index(row.run) if several else number) % len(SYMBOLS)]
        size = 12 + (30 * float(row.tokens) / biggest if sized and biggest > 0 else 0)
        name = str(row.config) + (FALLBACK_SUFFIX if str(row.label).endswith(FALLBACK_SUFFIX) else "") \
            if several else str(row.label)
        figure.add_trace(
            go.Scatter(
                x=[row.latency_ms_p50],
                y=[row.quality],
                mode="markers",
                name=name,
                legendgroup=name,
                showlegend=name not in shown,
                marker={"size": size, "symbol": symbol,
                        "color": config_colour(str(row.config)), "line": {"width": 1, "color": "#333"},
                        "opacity": 0.6 if str(row.label).endswith(FALLBACK_SUFFIX) else 0.9},
                hovertemplate=(f"{row.label}<br>latency p50 %{{x:,.0f}} ms<br>{metric_label(quality)} %{{y:.3f}}"
                               f"<br>tokens per question {row.tokens:,.0f}<extra></extra>"),
            )
        )
        shown.add(name)
    how = "point size: tokens per question" if sized else "no LLM tokens used: equal points"
    if several:
        how += "<br>symbol = run: " + ", ".join(f"{SYMBOLS[i % len(SYMBOLS)]} {run}" for i, run in enumerate(runs))
    figure.update_layout(
        template=TEMPLATE,
        height=440 if several else 420,
        margin={"l": 10, "r": 10, "t": 80 if several else 50, "b": 10},
        title={"text": f"{metric_label(quality)} vs median latency<br><sup>{how}</sup>", "x": 0.0},
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
    """Stacked bars: how many questions of each configuration got each failure label; several runs get a panel
    each (configurations on the x axis), so no row holds every run's bars."""
    if questions.empty:
        return empty_figure("No per-question records in the chosen runs")
    several = questions["run"].nunique() > 1 if "run" in questions else False
    x = "config" if several else "label"
    keys = ["run", x, "failure"] if several else [x, "failure"]
    counts = questions.groupby(keys, sort=False).size().reset_index(name="count")
    order = failure_order(counts["failure"])
    figure = px.bar(
        counts,
        x=x,
        y="count",
        color="failure",
        facet_col="run" if several else None,
        facet_col_wrap=3 if several else 0,
        # several runs: each panel keeps its own configurations in their order (no empty slots)
        category_orders={"failure": order} if several else {"failure": order, x: list(dict.fromkeys(questions[x]))},
        color_discrete_map=FAILURE_COLOURS,
        template=TEMPLATE,
        facet_row_spacing=0.2,
    )
    if several:
        figure.for_each_annotation(lambda a: a.update(text=a.text.split("=", 1)[-1]))
        figure.update_xaxes(matches=None)  # each run's panel shows only its own configurations
    panels = questions["run"].nunique() if several else 1
    rows = (panels + 2) // 3
    figure.update_layout(
        height=300 * rows + 60,
        barmode="stack",
        margin={"l": 10, "r": 10, "t": 60, "b": 10},
        title={"text": "Failure labels per configuration (questions)", "x": 0.0},
        legend_title_text="failure",
    )
    figure.update_xaxes(title_text="", automargin=True, tickangle=-35 if counts[x].nunique() > 4 else 0,
                        showticklabels=True)
    figure.update_yaxes(title_text="")
    figure.update_yaxes(title_text="questions", col=1)
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


def reliability_diagram(bands: pd.DataFrame) -> go.Figure:
    """How often the first result was right (y) against the confidence shown (x), a point per confidence band
    sized by its answers, a line per configuration; the diagonal is perfect calibration. The legend names each
    configuration's ECE and how often it was right at confidence ≥ 0.9."""
    if bands.empty:
        return empty_figure("No confidence to check: no configuration with the confidence gate answered "
                            "an answerable question here.")
    figure = go.Figure()
    figure.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", line={"color": "#bbbbbb", "dash": "dot"},
                                name="perfectly calibrated", hoverinfo="skip"))
    for label, group in bands.groupby("label", sort=False):
        first = group.iloc[0]
        sure = "—" if pd.isna(first["right_when_sure"]) else f"{first['right_when_sure']:.2f} of {first['sure']}"
        figure.add_trace(go.Scatter(
            x=group["confidence"], y=group["right"], mode="lines+markers", name=f"{label} (ECE {first['ece']:.2f}; "
            f"right at ≥ 0.9: {sure})", line={"color": config_colour(str(label))},
            marker={"size": [6 + min(int(n), 40) / 2 for n in group["n"]]}, customdata=group[["n", "from", "to"]],
            hovertemplate="confidence %{customdata[1]:.1f}–%{customdata[2]:.1f}: %{customdata[0]} answers, "
                          "mean %{x:.2f}, first right %{y:.2f}<extra></extra>",
        ))
    figure.update_layout(template=TEMPLATE, height=360, margin={"l": 10, "r": 10, "t": 40, "b": 10},
                         title="Is the confidence shown a probability? (first result right, per confidence band)",
                         legend={"orientation": "h", "y": -0.2})
    figure.update_xaxes(title="confidence shown", range=[0, 1.02])
    figure.update_yaxes(title="first result right", range=[0, 1.02])
    return figure
