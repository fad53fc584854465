#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Draws bench_airfoil's CSV (bench_airfoil --csv FILE) as a PNG.

Left, when the CSV has per-loop rows: time per call of each loop (save_soln, adt_calc, res_calc,
bres_calc, update), one bar per variant in each loop's group, and the memory floor (the rows of
variant "floor") as a black line across the group. Right: time per iteration (the rows of loop
"total"), one bar per variant, the floor as a dashed line.

    plot_airfoil.py RESULTS.csv OUT.png [--title TEXT]

Columns: variant,loop,seconds_per_call,calls,gb_per_s (gb_per_s may be empty); for loop=total,
seconds_per_call is the time of one whole iteration.
"""
import argparse
import csv
import sys

import matplotlib

matplotlib.use("Agg")  # no display: the PNG only
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

COLUMNS = ["variant", "loop", "seconds_per_call", "calls", "gb_per_s"]
FLOOR = "floor"
TOTAL = "total"


def read_rows(path):
    """{variant: {loop: seconds per call}}, variants and loops in the order they first appear."""
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames is None or any(c not in reader.fieldnames for c in COLUMNS):
            raise ValueError(f"{path}: the header must name the columns {','.join(COLUMNS)}; it is "
                             f"{','.join(reader.fieldnames or [])!r}")
        times, variants, loops = {}, [], []
        for line, row in enumerate(reader, start=2):
            try:
                seconds = float(row["seconds_per_call"])
            except (TypeError, ValueError):
                raise ValueError(f"{path}:{line}: seconds_per_call {row['seconds_per_call']!r} is not a number")
            variant, loop = row["variant"], row["loop"]
            if variant not in times:
                times[variant] = {}
                variants.append(variant)
            if loop != TOTAL and loop not in loops:
                loops.append(loop)
            times[variant][loop] = seconds
    if not variants:
        raise ValueError(f"{path}: no rows")
    return times, variants, loops


def plot(times, variants, loops, out, title):
    measured = [v for v in variants if v != FLOOR]
    floor = times.get(FLOOR, {})
    per_loop = [l for l in loops if any(l in times[v] for v in measured)]
    panels = 2 if per_loop else 1
    fig, axes = plt.subplots(1, panels, figsize=(7 * panels + 2, 5), squeeze=False,
                             gridspec_kw={"width_ratios": [2, 1][:panels]})
    # tab20: distinct colours for up to 20 variants; hand-written ones hatched as well.
    colours = plt.get_cmap("tab20").colors
    colour = {v: colours[i % len(colours)] for i, v in enumerate(measured)}
    hatch = {v: "//" if v.startswith("hand-") else None for v in measured}

    if per_loop:
        ax = axes[0][0]
        width = 0.8 / max(1, len(measured))
        for i, v in enumerate(measured):
            xs = [g + (i - (len(measured) - 1) / 2) * width for g in range(len(per_loop))]
            ys = [1e6 * times[v].get(l, float("nan")) for l in per_loop]
            ax.bar(xs, ys, width, label=v, color=colour[v], hatch=hatch[v])
        for g, l in enumerate(per_loop):
            if l in floor:
                ax.hlines(1e6 * floor[l], g - 0.45, g + 0.45, colors="black", linewidth=2,
                          label="memory floor" if g == 0 else None)
        ax.set_xticks(range(len(per_loop)))
        ax.set_xticklabels(per_loop)
        ax.set_ylabel("microseconds per call")
        ax.set_title("per loop")
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize="small")

    ax = axes[0][panels - 1]
    with_total = [v for v in measured if TOTAL in times[v]]
    for i, v in enumerate(with_total):
        ax.bar(i, 1e3 * times[v][TOTAL], color=colour[v], hatch=hatch[v])
    if TOTAL in floor:
        ax.axhline(1e3 * floor[TOTAL], color="black", linestyle="--", label="memory floor")
        ax.legend(fontsize="small")
    ax.set_xticks(range(len(with_total)))
    ax.set_xticklabels(with_total, rotation=30, ha="right", fontsize="small")
    ax.set_ylabel("milliseconds per iteration")
    ax.set_title("whole iteration")
    ax.grid(axis="y", alpha=0.3)

    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def main(argv):
    parser = argparse.ArgumentParser(description="Draws bench_airfoil's CSV as a grouped bar chart (PNG).")
    parser.add_argument("csv", help="the file bench_airfoil --csv wrote")
    parser.add_argument("png", help="where to write the chart")
    parser.add_argument("--title", default="Airfoil: parloop against hand-written CUDA")
    args = parser.parse_args(argv)
    try:
        times, variants, loops = read_rows(args.csv)
        plot(times, variants, loops, args.png, args.title)
    except (OSError, ValueError) as e:
        print(f"plot_airfoil: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
